package officetest

import "strings"

// deckFODP is a flat OpenDocument presentation LibreOffice Impress opens
// and saves as .pptx and .odp. The right deck: three slides titled
// "Quarterly review", "Results" and "Next steps" (a subtitle, a bulleted
// list, a table), speaker notes on the first two, a yellow background on
// "Results" and a light blue one on the master page, 28 × 15.75 cm
// landscape; "Results" has a title-and-content layout, the others a title
// slide's. The wrong deck has a fourth slide, "Next steps" before
// "Results", other notes and bullets, no master background, a green
// "Results" and portrait 15.75 × 28 cm slides.
//
// Frames need presentation:style-name as well as presentation:class, or
// Impress imports them as plain text boxes and exports no placeholders.
func deckFODP(wrong bool) string {
	width, height, orient := "28cm", "15.75cm", "landscape"
	masterFill := `draw:fill="solid" draw:fill-color="#ddeeff"`
	resultsFill, welcome, north := "#ffff00", "Welcome everyone.", "North grew 12%"
	if wrong {
		width, height, orient = "15.75cm", "28cm", "portrait"
		masterFill = `draw:fill="none"`
		resultsFill, welcome, north = "#00ff00", "Welcome, everyone!", "North grew 10%"
	}
	frame := func(class, y, h, body string) string {
		return `<draw:frame presentation:style-name="pr1" draw:layer="layout" presentation:class="` + class + `" svg:x="1cm" svg:y="` + y + `" svg:width="13cm" svg:height="` + h + `"><draw:text-box>` + body + `</draw:text-box></draw:frame>`
	}
	notes := func(text string) string {
		return `<presentation:notes><draw:page-thumbnail presentation:class="page" svg:x="2cm" svg:y="2cm" svg:width="10cm" svg:height="7cm"/>` +
			frame("notes", "12cm", "10cm", `<text:p>`+text+`</text:p>`) + `</presentation:notes>`
	}
	page := func(n int, style, layout, body string) string {
		s := ""
		if style != "" {
			s = ` draw:style-name="` + style + `"`
		}
		return `<draw:page draw:name="page` + string(rune('0'+n)) + `"` + s + ` draw:master-page-name="Default" presentation:presentation-page-layout-name="` + layout + `">` + body + `</draw:page>`
	}
	title := func(t string) string { return frame("title", "1cm", "3cm", `<text:p>`+t+`</text:p>`) }
	review := title("Quarterly review") + frame("subtitle", "5cm", "3cm", `<text:p>Sales team, 2024</text:p>`) + notes(welcome)
	results := title("Results") + frame("outline", "5cm", "9cm",
		`<text:list><text:list-item><text:p>`+north+`</text:p></text:list-item><text:list-item><text:p>South held steady</text:p></text:list-item></text:list>`) +
		notes("Mention the new office.")
	next := title("Next steps") + `<draw:frame svg:x="1cm" svg:y="5cm" svg:width="13cm" svg:height="3cm"><table:table><table:table-row>` +
		`<table:table-cell><text:p>Hire</text:p></table:table-cell><table:table-cell><text:p>Q3</text:p></table:table-cell></table:table-row></table:table></draw:frame>`
	pages := []string{page(1, "", "AL1T0", review), page(2, "dp1", "AL2T1", results), page(3, "", "AL1T0", next)}
	if wrong {
		pages = []string{page(1, "", "AL1T0", review), page(2, "", "AL1T0", next), page(3, "dp1", "AL2T1", results), page(4, "", "AL1T0", title("Appendix"))}
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:styles>
  <style:presentation-page-layout style:name="AL1T0"><presentation:placeholder presentation:object="title" svg:x="1cm" svg:y="1cm" svg:width="13cm" svg:height="3cm"/><presentation:placeholder presentation:object="subtitle" svg:x="1cm" svg:y="5cm" svg:width="13cm" svg:height="3cm"/></style:presentation-page-layout>
  <style:presentation-page-layout style:name="AL2T1"><presentation:placeholder presentation:object="title" svg:x="1cm" svg:y="1cm" svg:width="13cm" svg:height="3cm"/><presentation:placeholder presentation:object="outline" svg:x="1cm" svg:y="5cm" svg:width="13cm" svg:height="9cm"/></style:presentation-page-layout>
 </office:styles>
 <office:automatic-styles>
  <style:page-layout style:name="PM1"><style:page-layout-properties fo:margin-top="0cm" fo:margin-bottom="0cm" fo:margin-left="0cm" fo:margin-right="0cm" fo:page-width="` + width + `" fo:page-height="` + height + `" style:print-orientation="` + orient + `"/></style:page-layout>
  <style:style style:name="Mdp1" style:family="drawing-page"><style:drawing-page-properties ` + masterFill + `/></style:style>
  <style:style style:name="dp1" style:family="drawing-page"><style:drawing-page-properties draw:fill="solid" draw:fill-color="` + resultsFill + `" presentation:background-visible="true"/></style:style>
  <style:style style:name="pr1" style:family="presentation"><style:graphic-properties draw:fill="none"/></style:style>
 </office:automatic-styles>
 <office:master-styles>
  <style:master-page style:name="Default" style:page-layout-name="PM1" draw:style-name="Mdp1"><draw:frame draw:layer="backgroundobjects" presentation:class="title" svg:x="1cm" svg:y="1cm" svg:width="13cm" svg:height="3cm"><draw:text-box/></draw:frame></style:master-page>
 </office:master-styles>
 <office:body><office:presentation>
  ` + strings.Join(pages, "\n  ") + `
 </office:presentation></office:body>
</office:document>
`
}
