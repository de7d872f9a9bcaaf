package web_test

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"strings"
	"testing"

	"github.com/textbook-rag/rag/web"
)

// /favicon.ico is an icon, not a 404: an ICO file holding one 32×32 PNG.
func TestFavicon(t *testing.T) {
	res, body := get(t, newHandler(t), "/favicon.ico")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/x-icon" {
		t.Fatalf("GET /favicon.ico: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	b := []byte(body)
	var head struct {
		Reserved, Type, Count uint16
		Width, Height         uint8
		_                     [6]byte
		Size, Offset          uint32
	}
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, &head); err != nil {
		t.Fatal(err)
	}
	if head.Type != 1 || head.Count != 1 || head.Width != 32 || int(head.Offset)+int(head.Size) != len(b) {
		t.Fatalf("ICO header %+v for %d bytes", head, len(b))
	}
	img, err := png.Decode(bytes.NewReader(b[head.Offset:]))
	if err != nil || img.Bounds().Dx() != 32 || img.Bounds().Dy() != 32 {
		t.Fatalf("the icon's image: %v, %v", img, err)
	}
	// Blue in the circle, white in the glyph, clear in the corner.
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Error("the corner is not transparent")
	}
	if r, g, bl, _ := img.At(16, 29).RGBA(); r>>8 != 0x2e || g>>8 != 0x5f || bl>>8 != 0xd8 {
		t.Errorf("the circle is %x %x %x, not the accent blue", r>>8, g>>8, bl>>8)
	}
}

// The widget names the course, and no name ends the script it is in.
func TestWidgetNamesTheCourse(t *testing.T) {
	h, err := newPage(testBook(), web.Options{Title: `Robots & <Rovers> "101"`})
	if err != nil {
		t.Fatal(err)
	}
	_, js := get(t, h, "/widget.js")
	if want := `var COURSE = "Robots \u0026 \u003cRovers\u003e \"101\"";`; !strings.Contains(js, want) {
		t.Errorf("widget.js lacks %s", want)
	}
	if strings.Contains(js, "__COURSE_NAME__") || strings.Contains(js, "<Rovers>") {
		t.Error("the course's name is not filled in safely")
	}
	_, page := get(t, h, "/")
	if !strings.Contains(page, "<title>Welcome to Robotics — Robots &amp; &lt;Rovers&gt; &#34;101&#34;</title>") {
		t.Error("the page title does not name the course")
	}
}
