package specs

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/pcflow/pcflow/specs/plan"
)

// WriteDiagnostics renders diagnostics the way terraform does: severity and
// summary, file:line:col with the block it is in, the source line with the
// range marked by carets, and the detail that says how to fix it.
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool) error {
	var b bytes.Buffer
	for _, d := range diags {
		sev := "Error"
		if d.Severity == hcl.DiagWarning {
			sev = "Warning"
		}
		if color {
			code := "31"
			if d.Severity == hcl.DiagWarning {
				code = "33"
			}
			fmt.Fprintf(&b, "\x1b[1;%sm%s:\x1b[0m \x1b[1m%s\x1b[0m\n", code, sev, printable(d.Summary, false))
		} else {
			fmt.Fprintf(&b, "%s: %s\n", sev, printable(d.Summary, false))
		}
		if d.Subject != nil {
			r := *d.Subject
			ctx := ""
			if f := files[r.Filename]; f != nil {
				in := r
				if d.Context != nil && d.Context.Filename == r.Filename {
					in = *d.Context
				}
				if hdr := blockPath(f, in); hdr != "" {
					ctx = ", in " + hdr
				}
			}
			fmt.Fprintf(&b, "\n  on %s:%d:%d%s:\n", printable(r.Filename, false), r.Start.Line, r.Start.Column, ctx)
			if f := files[r.Filename]; f != nil {
				writeSnippet(&b, f.Bytes, r)
			}
		}
		if d.Detail != "" {
			b.WriteString("\n")
			b.WriteString(wrap(printable(d.Detail, true), 78))
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// blockPath names the blocks that enclose r, outermost first, down to the
// block whose range is r: task "t" › subtask "a" › check "saved".
func blockPath(f *hcl.File, r hcl.Range) string {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return ""
	}
	var path []string
	for body != nil {
		var in *hclsyntax.Block
		for _, b := range body.Blocks {
			br := b.Range()
			if br.Start.Byte <= r.Start.Byte && r.End.Byte <= br.End.Byte {
				in = b
				break
			}
		}
		if in == nil {
			break
		}
		hdr := in.Type
		for _, l := range in.Labels {
			hdr += " " + quoteShort(l)
		}
		path = append(path, hdr)
		if br := in.Range(); br.Start.Byte == r.Start.Byte && br.End.Byte == r.End.Byte {
			break
		}
		body = in.Body
	}
	return strings.Join(path, " › ")
}

// writeSnippet prints the first line of r with carets under the range.
func writeSnippet(b *bytes.Buffer, src []byte, r hcl.Range) {
	lines := bytes.Split(src, []byte("\n"))
	if r.Start.Line < 1 || r.Start.Line > len(lines) {
		return
	}
	off := 0
	for _, l := range lines[:r.Start.Line-1] {
		off += len(l) + 1
	}
	raw := bytes.TrimRight(lines[r.Start.Line-1], "\r")
	clamp := func(n int) int { return min(max(n, 0), len(raw)) }
	start, end := clamp(r.Start.Byte-off), clamp(r.End.Byte-off)
	if r.End.Line != r.Start.Line {
		end = len(raw)
	}
	end = max(end, start)
	pre, mid, post := printable(string(raw[:start]), false), printable(string(raw[start:end]), false), printable(string(raw[end:]), false)
	// A very long line (a minified or hostile file) is shown around the
	// range only.
	const side, most = 60, 80
	if len([]rune(pre))+len([]rune(mid))+len([]rune(post)) > 2*side+most {
		if r := []rune(pre); len(r) > side {
			pre = "…" + string(r[len(r)-side:])
		}
		if r := []rune(mid); len(r) > most {
			mid = string(r[:most]) + "…"
		}
		if r := []rune(post); len(r) > side {
			post = string(r[:side]) + "…"
		}
	}
	prefix := fmt.Sprintf("  %4d | ", r.Start.Line)
	fmt.Fprintf(b, "%s%s%s%s\n", prefix, pre, mid, post)
	col := utf8.RuneCountInString(pre)
	n := max(utf8.RuneCountInString(mid), 1)
	fmt.Fprintf(b, "%s%s%s\n", strings.Repeat(" ", 2+4), " | ", strings.Repeat(" ", col)+strings.Repeat("^", n))
}

// printable makes text from a task file safe to print on a terminal:
// control characters (escape sequences among them), invalid UTF-8 and
// bidirectional overrides are shown as \xNN or \uNNNN; a tab becomes a
// space; newlines are kept only when keepNewlines is set.
func printable(s string, keepNewlines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\t':
			b.WriteByte(' ')
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// wrap folds text at width columns on word boundaries.
func wrap(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		var line string
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > width {
				out = append(out, line)
				line = w
				continue
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Format returns src in canonical HCL layout; comments are kept. It refuses
// files that do not parse, so a syntax error is never "formatted" away.
func Format(filename string, src []byte) ([]byte, hcl.Diagnostics) {
	if len(src) > MaxSourceBytes {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "File too large",
			Detail:   fmt.Sprintf("%s holds more than %s, the most a task file may hold.", filename, byteSize(MaxSourceBytes)),
		}}
	}
	if diags := checkNesting(src, filename); diags.HasErrors() {
		return nil, diags
	}
	_, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}

// ParseTemplate parses instruction text written in the task language's
// template syntax (for example by the Manager agent) into a plan expression.
// outputs lists, per subtask, the outputs that may be referenced.
func ParseTemplate(text string, outputs map[string][]string) (plan.Expr, error) {
	if diags := checkTemplateNesting([]byte(text), "instruction"); diags.HasErrors() {
		return plan.Expr{}, fmt.Errorf("instruction template: %s", diagString(diags))
	}
	e, diags := hclsyntax.ParseTemplate([]byte(text), "instruction", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return plan.Expr{}, fmt.Errorf("instruction template: %s", diagString(diags))
	}
	st := &scope{vars: map[string]*variable{}, subtasks: map[string]*subtaskDecl{}}
	for name, outs := range outputs {
		sd := &subtaskDecl{name: name, outputs: map[string]hcl.Range{}}
		for _, o := range outs {
			sd.outputs[o] = hcl.Range{}
		}
		st.subtasks[name] = sd
	}
	x, diags := st.convert(e)
	if diags.HasErrors() {
		return plan.Expr{}, fmt.Errorf("instruction template: %s", diagString(diags))
	}
	x, diags = fold(x, e.Range())
	if diags.HasErrors() {
		return plan.Expr{}, fmt.Errorf("instruction template: %s", diagString(diags))
	}
	return x, nil
}

func diagString(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		s := d.Summary
		if d.Detail != "" {
			s += ": " + d.Detail
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// RenderLayers writes the subtask DAG layer by layer: the subtasks of one
// layer can run in parallel once the layers above have finished.
func RenderLayers(w io.Writer, p *plan.Plan) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "task %q: %d device(s), %d setup step(s), %d subtask(s), %d task check(s)\n",
		p.Task, len(p.Devices), len(p.Setup), len(p.Subtasks), len(p.Checks))
	if len(p.Subtasks) == 0 {
		fmt.Fprintf(&b, "no subtasks: the Manager agent decomposes the instruction at run time:\n  %s\n", printable(p.Instruction, true))
		_, err := w.Write(b.Bytes())
		return err
	}
	layers, err := plan.Layers(p.Subtasks)
	if err != nil {
		return err
	}
	for i, l := range layers {
		par := ""
		if len(l) > 1 {
			par = fmt.Sprintf("  (%d in parallel)", len(l))
		}
		fmt.Fprintf(&b, "layer %d%s\n", i+1, par)
		for _, name := range l {
			s := p.Subtask(name)
			fmt.Fprintf(&b, "  %s on %s", s.Name, s.Device)
			if len(s.DependsOn) > 0 {
				fmt.Fprintf(&b, " ← %s", strings.Join(s.DependsOn, ", "))
			}
			var outs []string
			for _, o := range s.Outputs {
				outs = append(outs, o.Key)
			}
			if len(outs) > 0 {
				fmt.Fprintf(&b, " → outputs %s", strings.Join(outs, ", "))
			}
			if len(s.Checks) > 0 {
				fmt.Fprintf(&b, " [%d check(s)]", len(s.Checks))
			}
			b.WriteString("\n")
		}
	}
	_, err = w.Write(b.Bytes())
	return err
}
