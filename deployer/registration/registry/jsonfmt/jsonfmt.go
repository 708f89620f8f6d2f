// Package jsonfmt prints JSON the way prettier 3 prints it with its defaults (json parser,
// print width 80, two-space indent), so files written for repositories that run a prettier
// check (Initia's registry does) pass it unchanged: an object stays expanded when its source
// had a line break after "{" and otherwise goes on one line if it fits; an array goes on one
// line if it fits, unless it holds several objects or arrays of more than one entry; numbers
// of a broken array fill lines; strings, numbers and keys keep their source text.
package jsonfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Width is prettier's default print width.
const Width = 80

// Format reprints JSON source as prettier does.
func Format(src []byte) ([]byte, error) {
	p := parser{src: src}
	v, err := p.document()
	if err != nil {
		return nil, err
	}
	return print(v), nil
}

// Marshal encodes v as JSON (no HTML escaping) and prints it with every non-empty object
// expanded, the shape of hand-written registry files.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	p := parser{src: buf.Bytes(), expandAll: true}
	n, err := p.document()
	if err != nil {
		return nil, err
	}
	return print(n), nil
}

type kind int

const (
	scalar kind = iota // string, number, true, false, null: raw source text
	object
	array
)

type node struct {
	kind     kind
	raw      string   // scalar text
	number   bool     // scalar is a number
	keys     []string // object keys, raw (quoted)
	items    []*node  // object values or array items
	expanded bool     // object had a line break between "{" and its first key
}

func print(n *node) []byte {
	var b strings.Builder
	w := &writer{b: &b}
	w.value(n, 0, 0, 0)
	b.WriteByte('\n')
	return []byte(b.String())
}

type writer struct{ b *strings.Builder }

// flat is n on one line, or ok=false when it cannot be (an expanded object inside).
func flat(n *node) (string, bool) {
	switch n.kind {
	case scalar:
		return n.raw, true
	case object:
		if len(n.items) == 0 {
			return "{}", true
		}
		if n.expanded {
			return "", false
		}
		parts := make([]string, len(n.items))
		for i, v := range n.items {
			s, ok := flat(v)
			if !ok {
				return "", false
			}
			parts[i] = n.keys[i] + ": " + s
		}
		return "{ " + strings.Join(parts, ", ") + " }", true
	default:
		if len(n.items) == 0 {
			return "[]", true
		}
		if mustBreak(n) {
			return "", false
		}
		parts := make([]string, len(n.items))
		for i, v := range n.items {
			s, ok := flat(v)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	}
}

// mustBreak is prettier's rule for arrays of several objects or arrays with more than one
// entry each (all of one kind): one per line even when they would fit.
func mustBreak(n *node) bool {
	if len(n.items) < 2 {
		return false
	}
	first := n.items[0].kind
	for _, it := range n.items {
		if it.kind == scalar || it.kind != first || len(it.items) < 2 {
			return false
		}
	}
	return true
}

func width(s string) int { return utf8.RuneCountInString(s) }

// value prints n at column col (where its first character goes), with indent the current
// indentation and trail the characters that follow it on the same line (a comma).
func (w *writer) value(n *node, indent, col, trail int) {
	if s, ok := flat(n); ok && (n.kind == scalar || col+width(s)+trail <= Width) {
		w.b.WriteString(s)
		return
	}
	pad := strings.Repeat(" ", indent+2)
	switch n.kind {
	case object:
		w.b.WriteString("{\n")
		for i, v := range n.items {
			w.b.WriteString(pad + n.keys[i] + ": ")
			comma := 0
			if i < len(n.items)-1 {
				comma = 1
			}
			w.value(v, indent+2, indent+2+width(n.keys[i])+2, comma)
			if comma == 1 {
				w.b.WriteByte(',')
			}
			w.b.WriteByte('\n')
		}
		w.b.WriteString(strings.Repeat(" ", indent) + "}")
	case array:
		w.b.WriteString("[\n")
		if allNumbers(n) {
			w.fill(n, indent+2)
		} else {
			for i, v := range n.items {
				w.b.WriteString(pad)
				comma := 0
				if i < len(n.items)-1 {
					comma = 1
				}
				w.value(v, indent+2, indent+2, comma)
				if comma == 1 {
					w.b.WriteByte(',')
				}
				w.b.WriteByte('\n')
			}
		}
		w.b.WriteString(strings.Repeat(" ", indent) + "]")
	}
}

func allNumbers(n *node) bool {
	for _, it := range n.items {
		if it.kind != scalar || !it.number {
			return false
		}
	}
	return true
}

// fill packs numbers onto lines, as prettier prints a broken array of numbers.
func (w *writer) fill(n *node, indent int) {
	col := indent
	w.b.WriteString(strings.Repeat(" ", indent))
	for i, v := range n.items {
		s := v.raw
		if i < len(n.items)-1 {
			s += ","
		}
		if i > 0 {
			// prettier's fill measures the separator and the next number, not its comma.
			if col+1+width(v.raw) > Width {
				w.b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			} else {
				w.b.WriteByte(' ')
				col++
			}
		}
		w.b.WriteString(s)
		col += width(s)
	}
	w.b.WriteByte('\n')
}

// parser reads JSON keeping key order, scalar text and where objects had line breaks.
type parser struct {
	src       []byte
	pos       int
	expandAll bool
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("JSON line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *parser) document() (*node, error) {
	if !json.Valid(p.src) {
		var v any
		err := json.Unmarshal(p.src, &v)
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	p.space()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, p.errorf("text after the value")
	}
	return n, nil
}

// space skips whitespace and reports whether it held a line break.
func (p *parser) space() bool {
	nl := false
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\n':
			nl = true
		case ' ', '\t', '\r':
		default:
			return nl
		}
		p.pos++
	}
	return nl
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		p.pos++
		n := &node{kind: object}
		nl := p.space()
		if p.src[p.pos] == '}' {
			p.pos++
			return n, nil
		}
		n.expanded = nl || p.expandAll
		for {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.src[p.pos] != ':' {
				return nil, p.errorf("want ':'")
			}
			p.pos++
			p.space()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.items = append(n.items, v)
			p.space()
			if p.src[p.pos] == ',' {
				p.pos++
				p.space()
				continue
			}
			if p.src[p.pos] != '}' {
				return nil, p.errorf("want ',' or '}'")
			}
			p.pos++
			return n, nil
		}
	case c == '[':
		p.pos++
		n := &node{kind: array}
		p.space()
		if p.src[p.pos] == ']' {
			p.pos++
			return n, nil
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
			p.space()
			if p.src[p.pos] == ',' {
				p.pos++
				p.space()
				continue
			}
			if p.src[p.pos] != ']' {
				return nil, p.errorf("want ',' or ']'")
			}
			p.pos++
			return n, nil
		}
	case c == '"':
		s, err := p.str()
		return &node{raw: s}, err
	default:
		start := p.pos
		for p.pos < len(p.src) && !strings.ContainsRune(" \t\r\n,]}", rune(p.src[p.pos])) {
			p.pos++
		}
		raw := string(p.src[start:p.pos])
		return &node{raw: raw, number: raw != "true" && raw != "false" && raw != "null"}, nil
	}
}

// str reads a string literal and returns its source text, quotes included.
func (p *parser) str() (string, error) {
	if p.src[p.pos] != '"' {
		return "", p.errorf("want a string")
	}
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			return string(p.src[start:p.pos]), nil
		}
		p.pos++
	}
	return "", p.errorf("unterminated string")
}
