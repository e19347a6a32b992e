// Package office reads the files office applications save — spreadsheets
// (.xlsx, .xls, .ods, .csv), text documents (.docx, .odt, .pdf) and
// presentations (.pptx, .odp) — into plain models that checks compare with
// what a task expects.
//
// Libraries and why:
//   - .xlsx: github.com/xuri/excelize/v2 (values, formulas, styles, number
//     formats, panes, conditional formats). Charts and auto filters are not
//     read by excelize, so their few elements are decoded from the package's
//     XML with encoding/xml.
//   - .ods: values, formulas and sheet names are read natively from
//     content.xml, and frozen panes from settings.xml (no LibreOffice
//     needed; a conversion would drop view settings); for formatting,
//     charts, filters and conditional formats the file is converted to
//     .xlsx with `soffice --headless --convert-to xlsx` and read as above.
//   - .xls: no kept Go library reads it, so it is converted to .xlsx with
//     soffice first.
//   - .docx and .odt: no kept Go library reads character formatting with
//     style inheritance for both formats (github.com/fumiama/go-docx decodes
//     .docx runs but neither styles nor .odt), so both are walked with
//     encoding/xml into one Document model.
//   - .pdf: text only, with github.com/ledongthuc/pdf.
//   - .pptx and .odp: no kept Go library reads slide text, titles, notes
//     and backgrounds of both, so both are walked with encoding/xml into
//     one Presentation model, within bounds on unpacked size, nesting and
//     slide count (pkg.go) so a hostile file fails instead of filling
//     memory.
//
// Everything here is read-only and safe to retry.
package office
