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
type JSON struct {
	Subset  string `json:"subset,omitempty"`
	HasItem string `json:"has_item,omitempty"`
}
