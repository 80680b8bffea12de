package deploy

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const haproxyCfg = "haproxy/haproxy.cfg"

// haproxyServer is one `server NAME HOST:PORT check port ADMINPORT` line.
type haproxyServer struct {
	Backend, Name   string
	Addr            string
	Port, AdminPort int
}

var (
	serverLine  = regexp.MustCompile(`^\s*server (\S+) (\S+) check port (\d+)\s*$`)
	backendLine = regexp.MustCompile(`^backend (\S+)`)
	// The serve commands the file's header documents, one per replica.
	serveComment = regexp.MustCompile(`^#\s+mcpctl serve (.*)$`)
	// The ports the file uses for frontends, replicas and admin
	// listeners, all 189xx on loopback.
	cfgPort = regexp.MustCompile(`\b189\d\d\b`)
	// The health check: path and Host header.
	healthCheck = regexp.MustCompile(`(?m)^\s*http-check send meth GET uri (\S+) ver HTTP/1.1 hdr Host (\S+)$`)
)

func readHAProxy(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(haproxyCfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func haproxyServers(t *testing.T, cfg string) []haproxyServer {
	t.Helper()
	var out []haproxyServer
	backend := ""
	for _, line := range strings.Split(cfg, "\n") {
		if m := backendLine.FindStringSubmatch(line); m != nil {
			backend = m[1]
		}
		if m := serverLine.FindStringSubmatch(line); m != nil {
			admin, _ := strconv.Atoi(m[3])
			out = append(out, haproxyServer{Backend: backend, Name: m[1], Addr: m[2], Port: portOf(t, m[2]), AdminPort: admin})
		}
	}
	return out
}

// TestHAProxyConfig checks deploy/haproxy/haproxy.cfg against the CLI:
// the serve commands its header documents use flags serve has, each
// stateful server line is one of those replicas (MCP port and admin port),
// the health check asks an admin path that exists, the stateless backend's
// replicas can be started (--stateless), and HAProxy accepts the file.
func TestHAProxyConfig(t *testing.T) {
	t.Parallel()
	cfg := readHAProxy(t)
	replicas := map[int]int{} // --http port → --admin port
	for _, line := range strings.Split(cfg, "\n") {
		m := serveComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := strings.Fields(m[1])
		for i := 0; i < len(f)-1; i++ {
			if strings.HasPrefix(f[i], "--") {
				t.Run("flag "+f[i], func(t *testing.T) { requireServeFlag(t, f[i]) })
			}
			if f[i] == "--http" {
				replicas[portOf(t, f[i+1])] = -1
				for j := i; j < len(f)-1; j++ {
					if f[j] == "--admin" {
						replicas[portOf(t, f[i+1])] = portOf(t, f[j+1])
					}
				}
			}
		}
	}
	t.Run("flag --stateless", func(t *testing.T) { requireServeFlag(t, "--stateless") })
	servers := haproxyServers(t, cfg)
	if len(servers) != 6 {
		t.Fatalf("want 3 stateful and 3 stateless server lines, got %d", len(servers))
	}
	for _, s := range servers {
		if ip := net.ParseIP(strings.Split(s.Addr, ":")[0]); ip == nil || !ip.IsLoopback() {
			t.Errorf("server %s at %s is not on loopback", s.Name, s.Addr)
		}
		if s.Backend != "mcpctl_stateful" {
			continue
		}
		if admin, ok := replicas[s.Port]; !ok || admin != s.AdminPort {
			t.Errorf("server %s: %s check port %d is no documented replica (--http port → --admin port: %v)", s.Name, s.Addr, s.AdminPort, replicas)
		}
	}
	t.Run("health check", func(t *testing.T) {
		m := healthCheck.FindAllStringSubmatch(cfg, -1)
		if len(m) != 2 {
			t.Fatalf("want an http-check send GET … hdr Host … in both backends, got %d", len(m))
		}
		for _, c := range m {
			if code := adminAnswers(t, c[1], c[2]); code != http.StatusOK {
				t.Errorf("the health check GET %s (Host %s) gets %d from a ready replica, want 200", c[1], c[2], code)
			}
		}
	})
	t.Run("haproxy -c", func(t *testing.T) {
		bin, err := exec.LookPath("haproxy")
		if err != nil {
			t.Skip("haproxy is not installed (.ci/run installs it)")
		}
		if out, err := exec.Command(bin, "-c", "-q", "-f", haproxyCfg).CombinedOutput(); err != nil {
			t.Errorf("haproxy -c: %v\n%s", err, out)
		}
	})
}

// fleetHAProxyConfig writes deploy/haproxy/haproxy.cfg with each of its
// 189xx ports replaced by ports[old] (the one source of truth for the
// fleet test) into dir and returns its path.
func fleetHAProxyConfig(t *testing.T, dir string, ports map[int]int) string {
	t.Helper()
	var missing []string
	cfg := cfgPort.ReplaceAllStringFunc(readHAProxy(t), func(s string) string {
		old, _ := strconv.Atoi(s)
		p, ok := ports[old]
		if !ok {
			missing = append(missing, s)
			return s
		}
		return strconv.Itoa(p)
	})
	if len(missing) > 0 {
		t.Fatalf("no port given for %v", missing)
	}
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFleetHAProxyConfig: every port of the file is substituted, the rest
// is the file as committed.
func TestFleetHAProxyConfig(t *testing.T) {
	t.Parallel()
	ports := map[int]int{}
	for _, s := range cfgPort.FindAllString(readHAProxy(t), -1) {
		old, _ := strconv.Atoi(s)
		ports[old] = old + 20000
	}
	data, err := os.ReadFile(fleetHAProxyConfig(t, t.TempDir(), ports))
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	if left := cfgPort.FindAllString(got, -1); len(left) > 0 {
		t.Errorf("ports left unsubstituted: %v", left)
	}
	if !strings.Contains(got, "server r1 127.0.0.1:38931 check port 38941") || !strings.Contains(got, "stick match req.hdr(Mcp-Session-Id)") {
		t.Errorf("generated config:\n%s", got)
	}
}
