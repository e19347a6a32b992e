package office

import (
	"context"
	"encoding/json"
	"testing"
)

func TestReadLibreOfficeFiles(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sales.xlsx", "sales.ods", "sales.csv"} {
		w, err := OpenWorkbook(ctx, fx(name), Soffice{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		b, _ := json.Marshal(w.Sheets())
		t.Logf("%s sheets %s", name, b)
		for _, ref := range []string{"A1", "B3", "D2", "D3"} {
			c, err := w.Cell("", ref)
			t.Logf("%s %s = %+v %v", name, ref, c, err)
		}
		if name == "sales.csv" {
			continue
		}
		st, err := w.Style("", "A1")
		t.Logf("style A1 %+v %v", st, err)
		st, err = w.Style("", "B3")
		t.Logf("style B3 %+v %v", st, err)
		ch, err := w.Charts("")
		t.Logf("charts %+v %v", ch, err)
		fr, err := w.Frozen("")
		t.Logf("frozen %q %v", fr, err)
		fl, err := w.Filter("")
		t.Logf("filter %q %v", fl, err)
		cf, err := w.ConditionalFormats("")
		t.Logf("cf %+v %v", cf, err)
	}
	for _, name := range []string{"report.docx", "report.odt", "report.pdf"} {
		d, err := OpenDocument(fx(name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(d, "", " ")
		t.Logf("%s: %s", name, b)
	}
}
