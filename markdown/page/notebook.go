package page

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Jupyter notebook (.ipynb, nbformat 4) is a page of a Jupyter Book:
// its Markdown cells are its text and its code cells code blocks in the
// kernel's language. Outputs are not read: they are what the code
// printed, not what the book says.

type notebook struct {
	Cells []struct {
		CellType string          `json:"cell_type"`
		Source   json.RawMessage `json:"source"`
	} `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
}

// Notebook is a notebook as a Markdown page.
func Notebook(b []byte) ([]byte, error) {
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("not a Jupyter notebook: %w", err)
	}
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = nb.Metadata.Kernelspec.Language
	}
	lang = strings.Map(func(r rune) rune {
		if r == '`' || r == ' ' || r == '\n' {
			return -1
		}
		return r
	}, lang)
	var out strings.Builder
	for _, c := range nb.Cells {
		src := cellSource(c.Source)
		switch c.CellType {
		case "markdown":
			out.WriteString(src)
		case "code":
			if strings.TrimSpace(src) == "" {
				continue
			}
			fence := "```"
			for strings.Contains(src, fence) {
				fence += "`"
			}
			out.WriteString(fence + lang + "\n" + strings.TrimRight(src, "\n") + "\n" + fence)
		default:
			continue
		}
		out.WriteString("\n\n")
	}
	return []byte(out.String()), nil
}

// cellSource is a cell's source: a string, or a list of lines.
func cellSource(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if json.Unmarshal(raw, &lines) == nil {
		return strings.Join(lines, "")
	}
	return ""
}
