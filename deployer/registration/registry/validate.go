package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/registration/registry/jsonfmt"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

var english = message.NewPrinter(language.English)

// MaxImageBytes is the registry's limit on an image file.
const MaxImageBytes = 100 << 10

// schemaKinds are the registry's schema files, <kind>.schema.json at a checkout's root.
var schemaKinds = []string{"chain", "assetlist", "profile"}

// Schemas are the compiled schemas entries are checked against: the registry checkout's own
// when there is one (its rules are the ones its CI applies), the embedded ones otherwise.
type Schemas struct {
	// Source says where they came from: "embedded" or the checkout's folder.
	Source string
	byKind map[string]*jsonschema.Schema
}

var (
	embeddedOnce sync.Once
	embedded     *Schemas
	embeddedErr  error
)

// EmbeddedSchemas are the schemas built into vipharness (deployer/registration/registry/schemas).
func EmbeddedSchemas() (*Schemas, error) {
	embeddedOnce.Do(func() {
		embedded, embeddedErr = compileSchemas("embedded", func(kind string) ([]byte, error) {
			return schemas.ReadFile("schemas/" + kind + ".schema.json")
		})
	})
	return embedded, embeddedErr
}

// SchemasFor returns the schemas of the registry checkout at root when root holds them
// (chain.schema.json at its top), the embedded ones when root is "" or holds none. A
// checkout whose schemas are missing in part or do not compile is an error, not a silent
// fall-back: its CI would use them.
func SchemasFor(root string) (*Schemas, error) {
	if root == "" {
		return EmbeddedSchemas()
	}
	if _, err := os.Stat(filepath.Join(root, "chain.schema.json")); errors.Is(err, os.ErrNotExist) {
		return EmbeddedSchemas()
	}
	return compileSchemas(root, func(kind string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, kind+".schema.json"))
	})
}

func compileSchemas(source string, read func(kind string) ([]byte, error)) (*Schemas, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	out := &Schemas{Source: source, byKind: map[string]*jsonschema.Schema{}}
	for _, kind := range schemaKinds {
		b, err := read(kind)
		if err != nil {
			return nil, fmt.Errorf("registry schemas (%s): read %s.schema.json: %w", source, kind, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("registry schemas (%s): %s.schema.json is not JSON: %w", source, kind, err)
		}
		// The registry's CI validates with format as an annotation, while this library asserts
		// it under draft-07: its own devnet entries (a bare host:port under format uri) would
		// fail. Every format a schema names is therefore accepted as its CI accepts it.
		for _, name := range formatNames(doc) {
			c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
		}
		// One URL per source and kind, so a checkout's schemas never collide with ours.
		url := "https://vipharness.local/registry/" + kind + ".schema.json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("registry schemas (%s): %s: %w", source, kind, err)
		}
		if out.byKind[kind], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("registry schemas (%s): compile %s.schema.json: %w", source, kind, err)
		}
	}
	return out, nil
}

// Schema returns the JSON schema the project checks a file kind against (chain, assetlist,
// profile), for users who want to read it.
func Schema(name string) ([]byte, error) { return schemas.ReadFile("schemas/" + name + ".schema.json") }

// formatNames lists the values of every "format" keyword in a schema document.
func formatNames(doc any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if name, ok := x.(string); ok && k == "format" {
					out = append(out, name)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	return out
}

// Entry files as Validate reads them.
type EntryFiles struct {
	// Dir is the entry's folder inside the registry, e.g. mainnets/myrollup.
	Dir       string
	Chain     []byte
	Assetlist []byte // nil checks the chain alone (some published entries have none)
	Profile   []byte // nil when there is none
	// Root is the registry checkout, to check images it holds; "" skips that check.
	Root string
	// Schemas to check against; nil means SchemasFor(Root).
	Schemas *Schemas
}

type check struct {
	file     string
	problems []Problem
}

func (c *check) add(field, rule, format string, args ...any) {
	c.problems = append(c.problems, Problem{File: c.file, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Validate checks an entry against the schemas, the registry CI's data rules and prettier's
// formatting. It returns every broken rule; none means the entry passes.
func Validate(f EntryFiles) ([]Problem, error) {
	sch := f.Schemas
	if sch == nil {
		var err error
		if sch, err = SchemasFor(f.Root); err != nil {
			return nil, err
		}
	}
	var out []Problem
	chainFile, assetFile := path.Join(f.Dir, "chain.json"), path.Join(f.Dir, "assetlist.json")
	folder := path.Base(f.Dir)

	var chain chainDoc
	chainOK, err := checkFile(&out, sch, chainFile, "chain", f.Chain, &chain)
	if err != nil {
		return nil, err
	}
	var assets assetDoc
	assetsOK := false
	if f.Assetlist != nil {
		if assetsOK, err = checkFile(&out, sch, assetFile, "assetlist", f.Assetlist, &assets); err != nil {
			return nil, err
		}
	}

	c := &check{file: chainFile}
	if chainOK {
		if chain.ChainName != folder {
			c.add("/chain_name", "folder-name", "%q is not the folder's name %q", chain.ChainName, folder)
		}
		if parent := path.Base(path.Dir(f.Dir)); chain.NetworkType != "" && parent != "." && parent != NetworkFolder(chain.NetworkType) {
			c.add("/network_type", "network-folder", "%q entries live under %s/, this one is under %s/", chain.NetworkType, NetworkFolder(chain.NetworkType), parent)
		}
		if chain.EVMChainID != nil {
			if want := probe.DeriveEVMChainID(chain.ChainID); *chain.EVMChainID != want {
				c.add("/evm_chain_id", "evm-chain-id", "%d is not the EVM chain id Initia derives from chain_id %q: %d", *chain.EVMChainID, chain.ChainID, want)
			}
		}
		if mt := chain.Metadata.Minitia.Type; !vip.ServesJSONRPC(mt) {
			for _, api := range []string{"json-rpc", "json-rpc-websocket"} {
				if _, ok := chain.APIs[api]; ok {
					c.add("/apis/"+api, "json-rpc-minievm", "only a minievm serves EVM JSON-RPC; metadata.minitia.type is %q", mt)
				}
			}
		}
		for i, img := range chain.Images {
			checkImage(c, f.Root, fmt.Sprintf("/images/%d/png", i), img.PNG)
		}
		checkImage(c, f.Root, "/logo_URIs/png", chain.LogoURIs.PNG)
	}
	out = append(out, c.problems...)

	a := &check{file: assetFile}
	if assetsOK {
		if assets.ChainName != folder {
			a.add("/chain_name", "folder-name", "%q is not the folder's name %q", assets.ChainName, folder)
		}
		if chainOK && assets.ChainName != chain.ChainName {
			a.add("/chain_name", "assetlist-chain-name", "%q differs from chain.json's chain_name %q", assets.ChainName, chain.ChainName)
		}
		for i, as := range assets.Assets {
			at := fmt.Sprintf("/assets/%d", i)
			units := map[string]bool{}
			for _, u := range as.DenomUnits {
				units[u.Denom] = true
				for _, al := range u.Aliases {
					units[al] = true
				}
			}
			if !units[as.Base] {
				a.add(at+"/base", "denom-units", "base %q is not among the denom_units", as.Base)
			}
			if !units[as.Display] {
				a.add(at+"/display", "denom-units", "display %q is not among the denom_units", as.Display)
			}
			checkTraces(a, at, as)
			for j, img := range as.Images {
				checkImage(a, f.Root, fmt.Sprintf("%s/images/%d/png", at, j), img.PNG)
			}
			checkImage(a, f.Root, at+"/logo_URIs/png", as.LogoURIs.PNG)
		}
	}
	out = append(out, a.problems...)

	if f.Profile != nil {
		profFile := path.Join(path.Dir(path.Dir(f.Dir)), "profiles", folder+".json")
		var prof profileDoc
		ok, err := checkFile(&out, sch, profFile, "profile", f.Profile, &prof)
		if err != nil {
			return nil, err
		}
		if ok && prof.Name != folder {
			p := &check{file: profFile}
			p.add("/name", "profile-name", "%q is not the chain's name %q", prof.Name, folder)
			out = append(out, p.problems...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// RulePrettier is the rule of a file that is not formatted as the registry's prettier
// check prints it: Write's output always is.
const RulePrettier = "prettier"

// checkFile parses, schema-checks and format-checks one file; ok says the typed decode worked.
func checkFile(out *[]Problem, schemas *Schemas, file, kind string, src []byte, typed any) (ok bool, err error) {
	c := &check{file: file}
	defer func() { *out = append(*out, c.problems...) }()
	doc, perr := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if perr != nil {
		c.add("", "json", "not JSON: %v", perr)
		return false, nil
	}
	if verr := schemas.byKind[kind].Validate(doc); verr != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(verr, &ve) {
			return false, verr
		}
		for _, leaf := range leaves(ve) {
			c.add("/"+strings.Join(leaf.InstanceLocation, "/"), "schema", "%s", leaf.ErrorKind.LocalizedString(english))
		}
	}
	if formatted, ferr := jsonfmt.Format(src); ferr == nil && !bytes.Equal(formatted, src) {
		c.add("", RulePrettier, "not formatted as prettier 3 prints it (first difference on line %d)", firstDiffLine(src, formatted))
	}
	if err := json.Unmarshal(src, typed); err != nil {
		return false, nil // the schema problems above say what is wrong
	}
	return true, nil
}

// leaves are the innermost schema errors: the ones that name a field and a broken keyword.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// checkTraces follows an asset's traces as the registry CI does: each trace starts from the
// denom the previous one produced; IBC gives ibc/SHA256(path), OPinit gives
// l2/SHA3-256(bridge id || denom); the last denom must be the asset's base.
func checkTraces(a *check, at string, as assetEntry) {
	if len(as.Traces) == 0 {
		return
	}
	denom := as.Traces[0].Counterparty.BaseDenom
	for i, t := range as.Traces {
		tf := fmt.Sprintf("%s/traces/%d", at, i)
		if denom != "" && t.Counterparty.BaseDenom != denom {
			a.add(tf+"/counterparty/base_denom", "trace-link", "%q does not continue from the previous trace's denom %q", t.Counterparty.BaseDenom, denom)
		}
		switch t.Type {
		case "ibc", "ibc-cw20":
			denom = IBCDenom(t.Chain.Path)
		case "op":
			id, err := strconv.ParseUint(t.Chain.BridgeID, 10, 64)
			if err != nil {
				return // the schema reports the bridge id
			}
			denom = L2Denom(id, t.Counterparty.BaseDenom)
		default:
			denom = "" // a trace the CI cannot follow offline
		}
	}
	if denom != "" && denom != as.Base {
		last := as.Traces[len(as.Traces)-1].Type
		rule := map[string]string{"ibc": "ibc-denom", "ibc-cw20": "ibc-denom", "op": "l2-denom"}[last]
		a.add(at+"/base", rule, "base %q is not the %s trace's denom %q", as.Base, last, denom)
	}
}

// checkImage checks an image the registry itself serves: the file exists in the checkout and
// is at most 100 KB.
func checkImage(c *check, root, field, url string) {
	rel, ok := strings.CutPrefix(url, RawBase)
	if !ok || root == "" {
		return
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case err != nil:
		c.add(field, "image", "%s is not in the registry checkout (add the file under %s)", rel, path.Dir(rel))
	case st.Size() > MaxImageBytes:
		c.add(field, "image", "%s is %d bytes, over the registry's %d", rel, st.Size(), MaxImageBytes)
	}
}

// Loose views of the files for the data rules (the schema checks the shapes).
type chainDoc struct {
	ChainName   string  `json:"chain_name"`
	ChainID     string  `json:"chain_id"`
	EVMChainID  *uint64 `json:"evm_chain_id"`
	NetworkType string  `json:"network_type"`
	Fees        struct {
		FeeTokens []struct {
			Denom string `json:"denom"`
		} `json:"fee_tokens"`
	} `json:"fees"`
	APIs     map[string]json.RawMessage `json:"apis"`
	Metadata struct {
		Minitia struct {
			Type string `json:"type"`
		} `json:"minitia"`
	} `json:"metadata"`
	Images   []Image `json:"images"`
	LogoURIs Logo    `json:"logo_URIs"`
}

type assetDoc struct {
	ChainName string       `json:"chain_name"`
	Assets    []assetEntry `json:"assets"`
}

type assetEntry struct {
	DenomUnits []struct {
		Denom   string   `json:"denom"`
		Aliases []string `json:"aliases"`
	} `json:"denom_units"`
	Base    string `json:"base"`
	Display string `json:"display"`
	Traces  []struct {
		Type         string `json:"type"`
		Counterparty struct {
			BaseDenom string `json:"base_denom"`
		} `json:"counterparty"`
		Chain struct {
			BridgeID string `json:"bridge_id"`
			Path     string `json:"path"`
		} `json:"chain"`
	} `json:"traces"`
	Images   []Image `json:"images"`
	LogoURIs Logo    `json:"logo_URIs"`
}

type profileDoc struct {
	Name string `json:"name"`
}

// ReadEntry reads an entry's files from its folder in a registry checkout (dir is
// <root>/<network>s/<name>); the profile is <root>/profiles/<name>.json when it exists.
func ReadEntry(dir string) (EntryFiles, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return EntryFiles{}, err
	}
	root := filepath.Dir(filepath.Dir(abs))
	f := EntryFiles{Dir: path.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs)), Root: root}
	if f.Chain, err = os.ReadFile(filepath.Join(abs, "chain.json")); err != nil {
		return EntryFiles{}, fmt.Errorf("read the entry: %w", err)
	}
	// The registry holds chains without an assetlist (testnets/embr); Validate checks what is there.
	if f.Assetlist, err = os.ReadFile(filepath.Join(abs, "assetlist.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return EntryFiles{}, fmt.Errorf("read the entry: %w", err)
	}
	prof, err := os.ReadFile(filepath.Join(root, "profiles", filepath.Base(abs)+".json"))
	if err == nil {
		f.Profile = prof
	} else if !errors.Is(err, os.ErrNotExist) {
		return EntryFiles{}, err
	}
	return f, nil
}

// Write puts the entry's files under root (a registry checkout, or any folder) and returns
// their paths.
func (fs Files) Write(root string) ([]string, error) {
	var written []string
	names := make([]string, 0, len(fs))
	for p := range fs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(dst, fs[p], 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", dst, err)
		}
		written = append(written, dst)
	}
	return written, nil
}
