package mcpclient

import (
	"errors"
	"fmt"
	"strings"
)

// ErrWords is wrapped by every error of SplitWords.
var ErrWords = errors.New("cannot split command line")

// SplitWords splits a command line into words the way a POSIX shell
// tokenizes a simple command (POSIX.1-2024 XCU §2.2 Quoting, §2.3 Token
// Recognition), without running one:
//
//   - words are separated by unquoted blanks: space, tab and newline (where
//     a shell would end the command at a newline, here it only separates);
//   - a backslash outside quotes keeps the next character literally, and a
//     backslash-newline pair is removed (line continuation);
//   - single quotes keep everything up to the next single quote literally;
//   - inside double quotes a backslash escapes only $ ` " \ and newline
//     (backslash-newline is removed); before any other character it is kept;
//   - quotes join with adjacent text into one word ("a"'b'c is abc), and an
//     empty pair of quotes is an empty word.
//
// No expansion happens: $VAR, ~, globs and # are ordinary characters (a #
// does not start a comment). The unquoted operator characters | & ; < > ( )
// and the backquote are refused, because no shell runs the command and they
// could not mean what they would mean in one; quote them to pass them
// literally. An unterminated quote or a trailing backslash is an error.
// Every error wraps ErrWords and names the byte offset in line.
func SplitWords(line string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool // cur holds a word, possibly empty ("")
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if i+1 == len(line) {
				return nil, fmt.Errorf("%w: byte offset %d: trailing backslash", ErrWords, i)
			}
			i++
			if line[i] == '\n' {
				continue // line continuation: removed, does not end the word
			}
			cur.WriteByte(line[i])
			inWord = true
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: byte offset %d: unterminated single quote", ErrWords, i)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += 1 + end
			inWord = true
		case '"':
			end, err := doubleQuoted(line, i, &cur)
			if err != nil {
				return nil, err
			}
			i = end
			inWord = true
		case '|', '&', ';', '<', '>', '(', ')', '`':
			return nil, fmt.Errorf("%w: byte offset %d: unquoted %q: the command is run directly, not by a shell; quote it to pass it literally", ErrWords, i, c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted writes to cur the text of the double-quoted string that
// starts at line[start] (SplitWords' rules) and returns the offset of its
// closing quote.
func doubleQuoted(line string, start int, cur *strings.Builder) (int, error) {
	for i := start + 1; i < len(line); i++ {
		d := line[i]
		if d == '"' {
			return i, nil
		}
		if d == '\\' && i+1 < len(line) {
			switch line[i+1] {
			case '$', '`', '"', '\\':
				cur.WriteByte(line[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		cur.WriteByte(d)
	}
	return 0, fmt.Errorf("%w: byte offset %d: unterminated double quote", ErrWords, start)
}

// JoinWords is the inverse of SplitWords: it joins words with spaces,
// putting a word in single quotes when it is empty or holds a blank, a quote,
// a backslash or an operator character (a single quote inside is written as
// quote, backslash, quote, quote), so that SplitWords(JoinWords(w)) equals w:
//
//	JoinWords([]string{"srv", "a b", "it's"}) == `srv 'a b' 'it'\''s'`
func JoinWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && !strings.ContainsFunc(w, needsQuote) {
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, `'`, `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// needsQuote reports whether r is special to SplitWords outside quotes.
func needsQuote(r rune) bool {
	return strings.ContainsRune(" \t\n\\'\"|&;<>()`", r)
}
