package deploy

import (
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/serveconfig"
)

type k8sPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
	Port          int    `yaml:"port"`
	TargetPort    string `yaml:"targetPort"`
}

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type k8sContainer struct {
	Args           []string  `yaml:"args"`
	Ports          []k8sPort `yaml:"ports"`
	ReadinessProbe k8sProbe  `yaml:"readinessProbe"`
	LivenessProbe  k8sProbe  `yaml:"livenessProbe"`
	VolumeMounts   []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type k8sDeployment struct {
	Spec struct {
		Replicas int `yaml:"replicas"`
		Strategy struct {
			RollingUpdate struct {
				MaxUnavailable int `yaml:"maxUnavailable"`
			} `yaml:"rollingUpdate"`
		} `yaml:"strategy"`
		Template struct {
			Spec struct {
				TerminationGracePeriodSeconds int            `yaml:"terminationGracePeriodSeconds"`
				Containers                    []k8sContainer `yaml:"containers"`
				Volumes                       []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sObject struct {
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		MinAvailable int       `yaml:"minAvailable"`
		Ports        []k8sPort `yaml:"ports"`
	} `yaml:"spec"`
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("kubernetes/%s: %v", name, err)
	}
}

// serveArgs splits a container's args after "serve" into flags (name →
// value, "" for a boolean) and positional arguments.
func serveArgs(t *testing.T, args []string) (map[string]string, []string) {
	t.Helper()
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("container args %q do not start with serve", args)
	}
	flags := map[string]string{}
	var pos []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "--") {
			pos = append(pos, a)
			continue
		}
		name, value, _ := strings.Cut(a, "=")
		flags[name] = value
	}
	return flags, pos
}

func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	n, perr := strconv.Atoi(p)
	if err != nil || perr != nil {
		t.Fatalf("address %q has no port", addr)
	}
	return n
}

// TestKubernetesManifests checks every flag, port and path of
// deploy/kubernetes against the CLI: the flags against `mcpctl serve
// --help`, the probe paths against the admin listener, the ports against
// the flags' addresses, the config path against the ConfigMap mount.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	var dep k8sDeployment
	readYAML(t, "deployment.yaml", &dep)
	ps := dep.Spec.Template.Spec
	if len(ps.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(ps.Containers))
	}
	c := ps.Containers[0]
	flags, pos := serveArgs(t, c.Args)
	known, _ := serveFlags()
	for name, value := range flags {
		t.Run("flag "+name, func(t *testing.T) {
			requireServeFlag(t, name)
			if typ := known[name]; (typ == "") != (value == "") {
				t.Errorf("%s=%q: serve --help gives it type %q", name, value, typ)
			}
		})
	}
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	t.Run("ports", func(t *testing.T) {
		if got := portOf(t, flags["--http"]); ports["mcp"] != got {
			t.Errorf("containerPort mcp %d, --http listens on %d", ports["mcp"], got)
		}
		if got := portOf(t, flags["--admin"]); ports["admin"] != got {
			t.Errorf("containerPort admin %d, --admin listens on %d", ports["admin"], got)
		}
	})
	t.Run("probes", func(t *testing.T) { checkProbes(t, c) })
	t.Run("admin beyond loopback", func(t *testing.T) { checkAdminBind(t, c, flags) })
	t.Run("kubelet probes", func(t *testing.T) { checkKubeletProbes(t, c, flags["--admin"]) })
	t.Run("grace period", func(t *testing.T) {
		requireServeFlag(t, "--shutdown-timeout")
		d, err := time.ParseDuration(flags["--shutdown-timeout"])
		if err != nil {
			t.Fatalf("--shutdown-timeout=%q: %v", flags["--shutdown-timeout"], err)
		}
		if grace := time.Duration(ps.TerminationGracePeriodSeconds) * time.Second; grace <= d {
			t.Errorf("terminationGracePeriodSeconds %s is not above --shutdown-timeout %s", grace, d)
		}
	})
	t.Run("rollout", func(t *testing.T) {
		if dep.Spec.Strategy.RollingUpdate.MaxUnavailable != 0 {
			t.Errorf("maxUnavailable %d, want 0", dep.Spec.Strategy.RollingUpdate.MaxUnavailable)
		}
		var pdb k8sObject
		readYAML(t, "pdb.yaml", &pdb)
		if n := pdb.Spec.MinAvailable; n < 1 || n >= dep.Spec.Replicas {
			t.Errorf("PodDisruptionBudget minAvailable %d, want 1..%d (replicas %d)", n, dep.Spec.Replicas-1, dep.Spec.Replicas)
		}
	})
	t.Run("service", func(t *testing.T) {
		var svc k8sObject
		readYAML(t, "service.yaml", &svc)
		for _, p := range svc.Spec.Ports {
			if _, ok := ports[p.TargetPort]; !ok {
				t.Errorf("Service port %s: targetPort %q is no container port", p.Name, p.TargetPort)
			}
			if p.TargetPort == "admin" {
				t.Errorf("Service exposes the admin port")
			}
		}
	})
	t.Run("config", func(t *testing.T) { checkConfigMap(t, dep, pos) })
}

// checkProbes: readiness and liveness ask admin paths that exist, on the
// admin port.
func checkProbes(t *testing.T, c k8sContainer) {
	for _, p := range []struct {
		name  string
		probe k8sProbe
		want  string
	}{{"readinessProbe", c.ReadinessProbe, "/readyz"}, {"livenessProbe", c.LivenessProbe, "/healthz"}} {
		g := p.probe.HTTPGet
		if g.Path != p.want || g.Port != "admin" {
			t.Errorf("%s asks %s on port %q, want %s on admin", p.name, g.Path, g.Port, p.want)
		}
		if code := adminAnswers(t, g.Path, "127.0.0.1"); code == http.StatusNotFound {
			t.Errorf("%s: the admin listener has no %s", p.name, g.Path)
		}
	}
}

// checkKubeletProbes: the kubelet probes the pod's address with the Host
// header set to it (Kubernetes httpGet probes, host defaulting to the pod
// IP), so a ready replica must answer 200 to that Host too.
func checkKubeletProbes(t *testing.T, c k8sContainer, admin string) {
	for _, p := range []k8sProbe{c.ReadinessProbe, c.LivenessProbe} {
		host := "10.1.2.3:" + strconv.Itoa(portOf(t, admin))
		if code := adminAnswers(t, p.HTTPGet.Path, host); code != http.StatusOK {
			t.Errorf("GET %s with Host %s (a kubelet probe) gets %d from a ready replica, want 200", p.HTTPGet.Path, host, code)
		}
	}
}

// checkAdminBind: an --admin beyond loopback (what probes from the kubelet
// need) comes with --admin-token-file, read from a mounted Secret, or
// serve refuses to start.
func checkAdminBind(t *testing.T, c k8sContainer, flags map[string]string) {
	admin := flags["--admin"]
	host, _, err := net.SplitHostPort(admin)
	if err != nil {
		t.Fatalf("--admin=%q: %v", admin, err)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return
	}
	requireServeFlag(t, "--admin-token-file")
	file := flags["--admin-token-file"]
	if file == "" {
		t.Fatalf("--admin=%s binds beyond loopback without --admin-token-file: serve refuses it", admin)
	}
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(file, path.Clean(m.MountPath)+"/") {
			return
		}
	}
	t.Errorf("--admin-token-file=%s is in no volume mount", file)
}

// checkConfigMap: the config argument is a key of the ConfigMap mounted
// at its folder; the config loads; its gate.baseline is a key of the
// ConfigMap too.
func checkConfigMap(t *testing.T, dep k8sDeployment, pos []string) {
	if len(pos) != 1 {
		t.Fatalf("want one config argument, got %q", pos)
	}
	var cm k8sObject
	readYAML(t, "configmap.yaml", &cm)
	ps := dep.Spec.Template.Spec
	dir, file := path.Split(pos[0])
	mounted := false
	for _, m := range ps.Containers[0].VolumeMounts {
		for _, v := range ps.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil && v.ConfigMap.Name == cm.Metadata.Name && path.Clean(m.MountPath) == path.Clean(dir) {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Errorf("config %s is not in a mount of ConfigMap %s", pos[0], cm.Metadata.Name)
	}
	if _, ok := cm.Data[file]; !ok {
		t.Fatalf("ConfigMap %s has no key %s", cm.Metadata.Name, file)
	}
	var raw struct {
		Gate struct {
			Baseline string `yaml:"baseline"`
		} `yaml:"gate"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data[file]), &raw); err != nil {
		t.Fatal(err)
	}
	if b := raw.Gate.Baseline; b != "" {
		if _, ok := cm.Data[b]; !ok {
			t.Errorf("gate.baseline %s is no key of ConfigMap %s", b, cm.Metadata.Name)
		}
	}
	loadConfigMap(t, cm.Data, file)
}

// loadConfigMap writes the ConfigMap's files to a folder and loads the
// config from there as serve would.
func loadConfigMap(t *testing.T, data map[string]string, file string) {
	dir := t.TempDir()
	for k, v := range data {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := serveconfig.LoadConfig(filepath.Join(dir, file)); err != nil {
		t.Errorf("the ConfigMap's %s does not load: %v", file, err)
	}
}
