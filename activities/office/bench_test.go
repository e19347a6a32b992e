package office_test

import (
	"context"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
)

// BenchmarkReadCell opens a LibreOffice-saved workbook and reads one cell
// with its formula, as a cell check does.
func BenchmarkReadCell(b *testing.B) {
	for _, f := range []string{"sales.xlsx", "sales.ods", "sales.csv"} {
		b.Run(f, func(b *testing.B) {
			for b.Loop() {
				w, err := office.OpenWorkbook(context.Background(), right(f), nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Cell("", "D3"); err != nil {
					b.Fatal(err)
				}
				w.Close()
			}
		})
	}
}

// BenchmarkODSStyle reads an .ods cell's formatting, which converts the file
// with soffice: the cost of a formatting check on .ods.
func BenchmarkODSStyle(b *testing.B) {
	for b.Loop() {
		w, err := office.OpenWorkbook(context.Background(), right("sales.ods"), office.Soffice{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Style("", "A1"); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

// BenchmarkOpenDocument reads a LibreOffice-saved document into the model.
func BenchmarkOpenDocument(b *testing.B) {
	for _, f := range []string{"report.docx", "report.odt", "report.pdf"} {
		b.Run(f, func(b *testing.B) {
			for b.Loop() {
				if _, err := office.OpenDocument(right(f)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
