package plan

// Check kinds that read office files.
const (
	// CheckSheet compares ranges, sheets, charts, panes and filters of a
	// spreadsheet.
	CheckSheet = "sheet"
	// CheckDocument reads a text document's paragraphs, headings, tables,
	// character formatting and page setup.
	CheckDocument = "document"
	// CheckPresentation reads a slide deck's slides, titles, speaker notes,
	// backgrounds and slide size.
	CheckPresentation = "presentation"
)

// Number is a check on a numeric value: within Tolerance of Approx, below
// Less, above Greater (those that are set).
type Number struct {
	Approx    *float64 `json:"approx,omitempty"`
	Tolerance float64  `json:"tolerance,omitempty"`
	Less      *float64 `json:"less_than,omitempty"`
	Greater   *float64 `json:"greater_than,omitempty"`
}

// Format is character or cell formatting a check expects; unset fields are
// not checked. Colours are RRGGBB or a name (red, yellow…); Size is in
// points; VertAlign is superscript, subscript or baseline.
type Format struct {
	Bold         *bool    `json:"bold,omitempty"`
	Italic       *bool    `json:"italic,omitempty"`
	Underline    *bool    `json:"underline,omitempty"`
	Strike       *bool    `json:"strike,omitempty"`
	VertAlign    *string  `json:"vert_align,omitempty"`
	Font         *string  `json:"font,omitempty"`
	Size         *float64 `json:"font_size,omitempty"`
	Color        *string  `json:"color,omitempty"`
	Fill         *string  `json:"fill,omitempty"`
	Highlight    *string  `json:"highlight,omitempty"`
	NumberFormat *string  `json:"number_format,omitempty"`
}

// IsZero reports whether no formatting is asked for.
func (f Format) IsZero() bool { return f == Format{} }

// Office holds the conditions of cell, sheet and document checks beyond
// their text conditions.
type Office struct {
	Number  *Number `json:"number,omitempty"`
	Formula *string `json:"formula,omitempty"`
	Format  *Format `json:"format,omitempty"`

	// sheet
	Range             string     `json:"range,omitempty"`
	Table             [][]string `json:"table,omitempty"`
	Gold              *Expr      `json:"gold,omitempty"`
	GoldSheet         string     `json:"gold_sheet,omitempty"`
	Sheets            []string   `json:"sheets,omitempty"`
	Frozen            *string    `json:"frozen,omitempty"`
	Filter            *string    `json:"filter,omitempty"`
	ChartType         *string    `json:"chart_type,omitempty"`
	ChartTitle        *string    `json:"chart_title,omitempty"`
	ChartSeries       []string   `json:"chart_series,omitempty"`
	ConditionalFormat *string    `json:"conditional_format,omitempty"`
	// ChartCategories is the category (x-axis) range of every series of
	// the chart that fits.
	ChartCategories *string `json:"chart_categories,omitempty"`
	// Charts, when set, are exactly the sheet's charts, one each.
	Charts []Chart `json:"charts,omitempty"`
	// HiddenRows (1-based) and HiddenColumns ("B") are exactly the
	// hidden ones; an empty list means none is hidden.
	HiddenRows    *[]int    `json:"hidden_rows,omitempty"`
	HiddenColumns *[]string `json:"hidden_columns,omitempty"`
	// ConditionalCells are exactly the cells the conditional formats (of
	// ConditionalFormat's range, or of the sheet) style, their rules
	// evaluated on the cells' values.
	ConditionalCells *[]string `json:"conditional_format_cells,omitempty"`

	// document
	Paragraph    int                `json:"paragraph,omitempty"`
	Headings     []string           `json:"headings,omitempty"`
	HeadingLevel int                `json:"heading_level,omitempty"`
	TableIndex   int                `json:"table_index,omitempty"`
	Span         string             `json:"text,omitempty"`
	Orientation  *string            `json:"orientation,omitempty"`
	Margins      map[string]float64 `json:"margins,omitempty"`

	// presentation (Orientation too)
	// Slide (1-based) picks the slide the text conditions, Notes and
	// Background read; Slides is the number of slides; Titles the slides'
	// titles in order; SlideWidth and SlideHeight are in centimetres.
	Slide       int      `json:"slide,omitempty"`
	Slides      *int     `json:"slides,omitempty"`
	Titles      []string `json:"titles,omitempty"`
	Notes       *string  `json:"notes,omitempty"`
	Background  *string  `json:"background,omitempty"`
	Layout      *string  `json:"layout,omitempty"` // the kind of slide layout (office.Layouts)
	SlideWidth  *float64 `json:"slide_width,omitempty"`
	SlideHeight *float64 `json:"slide_height,omitempty"`
	// DeckIgnore are the aspects (DeckAspects) a presentation check with
	// same_as does not compare with its reference deck.
	DeckIgnore []string `json:"deck_ignore,omitempty"`

	// Tables is how many tables the document holds (not counting tables
	// inside tables); Alignment is the alignment of paragraph Paragraph,
	// or of every paragraph holding Span.
	Tables    *int    `json:"tables,omitempty"`
	Alignment *string `json:"alignment,omitempty"`
}

// Chart is one chart a sheet check expects; unset fields are not checked.
type Chart struct {
	Type       *string  `json:"type,omitempty"`
	Title      *string  `json:"title,omitempty"`
	Series     []string `json:"series,omitempty"`
	Categories *string  `json:"categories,omitempty"`
}

// DeckAspects are what a presentation check with same_as compares with
// its reference deck, as OSWorld's compare_pptx_files does by default, and
// what its ignore may leave out (the device compares them as
// office.DeckAspects).
var DeckAspects = []string{"slide_count", "notes", "positions", "text", "alignment", "indent",
	"font_name", "font_size", "bold", "italic", "color", "underline", "strike", "bullets"}

// SlideLayouts are the kinds of slide layout a presentation check may name
// (the device reads them as office.Layouts).
var SlideLayouts = []string{"title", "title_content", "two_content", "title_only", "centered_text", "blank"}

// Alignments are the paragraph alignments a document check may name.
var Alignments = []string{"left", "center", "right", "justify"}

// Formats the office check kinds read, by file extension (lower case).
var (
	SheetFormats    = []string{".xlsx", ".xlsm", ".xls", ".ods", ".csv"}
	DocumentFormats = []string{".docx", ".odt", ".pdf"}
	// PresentationFormats are read by presentation checks.
	PresentationFormats = []string{".pptx", ".odp"}
)

// ChartTypes are the chart kinds a sheet check may name (DrawingML's plot
// names: bar covers bars and columns).
var ChartTypes = []string{"bar", "line", "pie", "area", "scatter", "doughnut", "radar", "bubble", "stock", "surface", "ofPie"}

// VertAligns are the values Format.VertAlign takes.
var VertAligns = []string{"superscript", "subscript", "baseline"}

// PageSides are the margins a document check may name.
var PageSides = []string{"top", "bottom", "left", "right"}
