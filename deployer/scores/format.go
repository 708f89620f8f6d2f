package scores

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// Format is a score file encoding.
type Format string

const (
	// CSV is "address,score" per line; a header line, blank lines and lines starting
	// with # are skipped.
	CSV Format = "csv"
	// JSON is an array of {"address": ..., "score": ...} objects or of [address, score]
	// pairs (the Wasm contract's shape); a score may be a number or a decimal string.
	JSON Format = "json"
)

// ParseFormat accepts "csv" or "json" (any case).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case CSV, JSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown score file format %q: want csv or json", s)
}

// ParseFile reads a score file; an empty format is taken from the extension.
func ParseFile(path, format string) ([]Entry, error) {
	var out []Entry
	if err := ReadFile(path, format, func(e Entry) { out = append(out, e) }); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadFile is ParseFile handing each entry to emit as it is read, so that a large file is
// never held as text (a Builder validates them as they come). A file that changes while it
// is read is refused (ErrChanged, ErrUnterminated); the caller drops what was emitted.
func ReadFile(path, format string, emit func(Entry)) error {
	_, err := ReadFileStamped(path, format, emit)
	return err
}

// ErrNoFormat is a score file whose name does not tell its format, given none.
var ErrNoFormat = errors.New("no extension to tell its format (csv or json)")

// ReadFileStamped is ReadFile returning the stamp of the version it read, so a caller can
// tell later whether the file changed since.
func ReadFileStamped(path, format string, emit func(Entry)) (FileStamp, error) {
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
		if format == "" {
			return FileStamp{}, fmt.Errorf("score file %s: %w", path, ErrNoFormat)
		}
	}
	f, err := ParseFormat(format)
	if err != nil {
		return FileStamp{}, fmt.Errorf("score file %s: %w", path, err)
	}
	return readStable(path, f, emit)
}

// Parse reads entries in the given format. Syntax and range problems are errors naming the
// line or element; addresses are checked later by Validate, against the VM.
func Parse(r io.Reader, f Format) ([]Entry, error) {
	var out []Entry
	if err := parse(r, f, func(e Entry) { out = append(out, e) }); err != nil {
		return nil, err
	}
	return out, nil
}

// Read is Parse handing each entry to emit as it is read.
func Read(r io.Reader, f Format, emit func(Entry)) error { return parse(r, f, emit) }

// utf8BOM is what some editors and spreadsheet exports write before the first line.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parse hands each entry to emit as it is read; a UTF-8 byte order mark is skipped.
func parse(r io.Reader, f Format, emit func(Entry)) error {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	switch f {
	case CSV:
		return parseCSV(br, emit)
	case JSON:
		return parseJSON(br, emit)
	}
	return fmt.Errorf("unknown score file format %q: want csv or json", f)
}

func parseScore(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing score")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("score %s out of range (max u64 18446744073709551615)", s)
		}
		if strings.HasPrefix(s, "-") {
			return 0, fmt.Errorf("score %q is negative", s)
		}
		return 0, fmt.Errorf("score %q is not a whole decimal number", s)
	}
	return v, nil
}

func parseCSV(r io.Reader, emit func(Entry)) error {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	cr.ReuseRecord = true
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// A csv.ParseError names its line itself.
			return fmt.Errorf("csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 2 {
			return fmt.Errorf("line %d: want 2 fields (address,score), got %d", line, len(rec))
		}
		addr := strings.TrimSpace(rec[0])
		if first && isHeader(addr, rec[1]) {
			continue
		}
		if err := checkAddressSyntax(addr); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		amount, err := parseScore(rec[1])
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		emit(Entry{Addr: addr, Amount: amount})
	}
}

// checkAddressSyntax rejects what no chain's address can be (hex, bech32 and Move
// addresses are all letters and digits): the VM's own check comes later, in Validate.
func checkAddressSyntax(addr string) error {
	if addr == "" {
		return errors.New("missing address")
	}
	if len(addr) > 128 {
		return fmt.Errorf("address %.20q... is %d characters long", addr, len(addr))
	}
	for _, c := range addr {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Errorf("address %q: character %q is not a letter or digit", addr, c)
		}
	}
	return nil
}

// isHeader tells a header line ("address,score") from a data line with a bad score.
func isHeader(addr, score string) bool {
	a, s := strings.ToLower(addr), strings.ToLower(strings.TrimSpace(score))
	return (a == "address" || a == "addr") && (s == "score" || s == "amount")
}

type jsonObject struct {
	Address *string         `json:"address"`
	Addr    *string         `json:"addr"`
	Score   json.RawMessage `json:"score"`
	Amount  json.RawMessage `json:"amount"`
}

// parseJSON reads the array element by element, so a large file is never held whole.
func parseJSON(r io.Reader, emit func(Entry)) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) || (err == nil && tok == nil) { // empty, or null
		return trailing(dec)
	}
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '[' {
		if err == nil {
			err = fmt.Errorf("got %v", tok)
		}
		return fmt.Errorf("json: want an array of score entries: %w", err)
	}
	for i := 0; dec.More(); i++ {
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			return fmt.Errorf("json: want an array of score entries: element %d: %w", i, err)
		}
		e, err := parseJSONEntry(elem)
		if err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
		emit(e)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("json: want an array of score entries: %w", err)
	}
	return trailing(dec)
}

func trailing(dec *json.Decoder) error {
	if dec.More() {
		return errors.New("json: trailing data after the array")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("json: trailing data after the array")
	}
	return nil
}

func parseJSONEntry(elem json.RawMessage) (Entry, error) {
	elem = bytes.TrimSpace(elem)
	var addr string
	var score json.RawMessage
	switch {
	case len(elem) > 0 && elem[0] == '[':
		var pair []json.RawMessage
		if err := json.Unmarshal(elem, &pair); err != nil || len(pair) != 2 {
			return Entry{}, errors.New("want [address, score]")
		}
		if err := json.Unmarshal(pair[0], &addr); err != nil {
			return Entry{}, errors.New("address must be a string")
		}
		score = pair[1]
	case len(elem) > 0 && elem[0] == '{':
		var o jsonObject
		dec := json.NewDecoder(bytes.NewReader(elem))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return Entry{}, fmt.Errorf("want {\"address\", \"score\"}: %w", err)
		}
		switch {
		case o.Address != nil:
			addr = *o.Address
		case o.Addr != nil:
			addr = *o.Addr
		default:
			return Entry{}, errors.New("missing address")
		}
		score = o.Score
		if score == nil {
			score = o.Amount
		}
	default:
		return Entry{}, errors.New("want an object or an [address, score] pair")
	}
	addr = strings.TrimSpace(addr)
	if err := checkAddressSyntax(addr); err != nil {
		return Entry{}, err
	}
	s, err := scoreText(score)
	if err != nil {
		return Entry{}, err
	}
	amount, err := parseScore(s)
	if err != nil {
		return Entry{}, err
	}
	return Entry{Addr: addr, Amount: amount}, nil
}

// scoreText returns a JSON number's literal text or a JSON string's content.
func scoreText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("missing score")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("score: %w", err)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("score %s is not a number", raw)
	}
	return n.String(), nil
}

// csvHeader is the first line of a CSV score file.
var csvHeader = []string{"address", "score"}

// writeCSVRows writes entries as CSV rows, address then score.
func writeCSVRows(cw *csv.Writer, entries []Entry) error {
	for _, e := range entries {
		if err := cw.Write([]string{e.Addr, strconv.FormatUint(e.Amount, 10)}); err != nil {
			return err
		}
	}
	return nil
}

// Write encodes entries in the given format; Parse reads the result back unchanged.
func Write(w io.Writer, entries []Entry, f Format) error {
	switch f {
	case CSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return err
		}
		if err := writeCSVRows(cw, entries); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if entries == nil {
			entries = []Entry{}
		}
		return enc.Encode(entries)
	}
	return fmt.Errorf("unknown score file format %q: want csv or json", f)
}
