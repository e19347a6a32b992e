// Package importer turns a benchmark's task files, as their authors
// published them, into pcflow task files: OSWorld's and Windows Agent
// Arena's <domain>/<id>.json (with an index such as test_all.json beside
// them) and macOSWorld's tasks/<domain>/<id>.json.
//
// Contract: every task file Import writes parses with specs.Parse with no
// error and no warning; a benchmark task whose evaluator pcflow's checks
// cannot carry faithfully is written as "partly" (what is approximated or
// dropped is said in its header and in the coverage) or not written at all
// ("not_imported", naming the missing getter, metric, setup step or
// platform). An imported task never has a check that always passes: a task
// none of whose evaluator functions is carried is not imported.
//
// Import reads and writes files only; it runs nothing on a device.
package importer
