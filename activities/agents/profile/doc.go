// Package profile describes how a model family wants to be spoken to: the
// protocol, the coordinate space of its answers, the image sizing that
// matches it and the parser for its text answers. Built-in profiles cover
// the families people run for computer use; users define their own in a
// JSON file. Everything here is pure: no I/O but reading a profiles file.
//
// Contract: a Profile's ToScreen is the only way a model's coordinates
// reach the screen, and it rejects (never clamps) a point outside the
// model's space with a *RangeError whose text tells the model what to
// give instead. ParseText never guesses: an answer it cannot read is an
// error that says which format was expected.
package profile
