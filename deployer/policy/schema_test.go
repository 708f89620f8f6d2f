package policy

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// yamlKeys are the yaml tags of a struct type's fields.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]; tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

func schemaKeys(props map[string]any) []string {
	var out []string
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The schema and the decoder know the same keys at every level: a key the schema allowed
// and the decoder dropped would be a rule silently ignored.
func TestSchemaMatchesTheDecoder(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatal(err)
	}
	props := func(m map[string]any, path ...string) map[string]any {
		for _, p := range path {
			m = m[p].(map[string]any)
		}
		return m["properties"].(map[string]any)
	}
	src := reflect.TypeOf(SourceSpec{})
	field := func(t reflect.Type, name string) reflect.Type {
		f, _ := t.FieldByName(name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		return ft
	}
	tests := []struct {
		name   string
		schema map[string]any
		typ    reflect.Type
	}{
		{"policy", props(s), reflect.TypeOf(file{})},
		{"action", props(s, "properties", "actions", "items"), reflect.TypeOf(Action{})},
		{"source", props(s, "properties", "sources", "items"), src},
		{"evm_log", props(s, "properties", "sources", "items", "properties", "evm_log"), field(src, "Log")},
		{"evm_call", props(s, "properties", "sources", "items", "properties", "evm_call"), field(src, "Call")},
		{"erc20_transfer", props(s, "properties", "sources", "items", "properties", "erc20_transfer"), field(src, "ERC20")},
		{"native_transfer", props(s, "properties", "sources", "items", "properties", "native_transfer"), field(src, "Native")},
		{"move_event", props(s, "properties", "sources", "items", "properties", "move_event"), field(src, "Move")},
		{"wasm_event", props(s, "properties", "sources", "items", "properties", "wasm_event"), field(src, "Wasm")},
		{"cosmos_event", props(s, "properties", "sources", "items", "properties", "cosmos_event"), field(src, "Cosmos")},
		{"rule", props(s, "properties", "rules", "items"), reflect.TypeOf(RuleSpec{})},
		{"score", props(s, "properties", "score"), field(reflect.TypeOf(file{}), "Score")},
	}
	for _, tc := range tests {
		if a, b := schemaKeys(tc.schema), yamlKeys(tc.typ); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: schema keys %v, decoder keys %v", tc.name, a, b)
		}
	}
}
