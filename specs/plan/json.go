package plan

// CheckJSON reads a JSON file on the device and compares its values with
// expected ones, by Python's equality (OSWorld's JSON metrics).
const CheckJSON = "json"

// JSON is what a json check asks of its file. Subset is a JSON object
// each of whose keys the file's top-level object holds with an equal
// value (OSWorld's check_json_settings, check_direct_json_object);
// HasItem is a JSON value an item of the file's top-level list equals
// (check_json_keybindings), the file read without its first line when it
// is not a list otherwise (where VS Code writes a comment). Values are
// equal as Python's == finds them: numbers by value (true is 1), objects
// with the same keys.
//
// Format "prefs" reads a Mozilla prefs.js instead (Firefox's,
// Thunderbird's): its user_pref("key", value); lines as an object, each
// value JSON (a key written twice has its last value). Excludes is a JSON
// object none of whose keys the file has with an equal value (every line
// of a prefs.js counts); KeyMatches a JSON object of keys and RE2
// patterns, each key's value a string the pattern finds.
type JSON struct {
	Subset     string `json:"subset,omitempty"`
	HasItem    string `json:"has_item,omitempty"`
	Excludes   string `json:"excludes,omitempty"`
	KeyMatches string `json:"key_matches,omitempty"`
	Format     string `json:"format,omitempty"`
}

// JSONFormats are the formats a json check reads: "json" (the default)
// and "prefs" (a Mozilla prefs.js).
var JSONFormats = []string{"json", "prefs"}
