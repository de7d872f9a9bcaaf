package web

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"time"
)

// The site's icon: the widget launcher's question mark, white on the
// accent blue, in a circle. It is drawn here rather than kept as a binary
// file, and wrapped as an ICO holding one PNG, which every browser reads.

// questionMark is the glyph, one character per pixel before scaling.
var questionMark = []string{
	"..XXXX..",
	".XX..XX.",
	".XX..XX.",
	".....XX.",
	"....XX..",
	"...XX...",
	"...XX...",
	"...XX...",
	"........",
	"...XX...",
	"...XX...",
}

// iconSize is the icon's width and height in pixels.
const iconSize = 32

func drawIcon() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	accent := color.NRGBA{0x2e, 0x5f, 0xd8, 0xff}
	// The circle, its edge smoothed by 4×4 samples a pixel.
	const sub = 4
	c := float64(iconSize) / 2
	for y := range iconSize {
		for x := range iconSize {
			in := 0
			for sy := range sub {
				for sx := range sub {
					dx := float64(x) + (float64(sx)+0.5)/sub - c
					dy := float64(y) + (float64(sy)+0.5)/sub - c
					if dx*dx+dy*dy <= c*c {
						in++
					}
				}
			}
			if in > 0 {
				p := accent
				p.A = uint8(255 * in / (sub * sub))
				img.SetNRGBA(x, y, p)
			}
		}
	}
	// The glyph, each pixel 2×2, centred.
	const scale = 2
	x0 := (iconSize - scale*len(questionMark[0])) / 2
	y0 := (iconSize - scale*len(questionMark)) / 2
	for gy, row := range questionMark {
		for gx, ch := range row {
			if ch != 'X' {
				continue
			}
			for sy := range scale {
				for sx := range scale {
					img.SetNRGBA(x0+gx*scale+sx, y0+gy*scale+sy, color.NRGBA{0xff, 0xff, 0xff, 0xff})
				}
			}
		}
	}
	return img
}

// buildFavicon encodes the icon as an ICO file with one PNG image.
func buildFavicon() (asset, error) {
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, drawIcon()); err != nil {
		return asset{}, err
	}
	var b bytes.Buffer
	const headerSize = 6 + 16 // ICONDIR and one ICONDIRENTRY
	for _, v := range []any{
		uint16(0), uint16(1), uint16(1), // reserved, type icon, one image
		uint8(iconSize), uint8(iconSize), uint8(0), uint8(0), // width, height, no palette, reserved
		uint16(1), uint16(32), // planes, bits per pixel
		uint32(pngData.Len()), uint32(headerSize),
	} {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			return asset{}, err
		}
	}
	b.Write(pngData.Bytes())
	return asset{body: b.Bytes(), etag: etag(b.Bytes())}, nil
}

func (h *Handler) serveFavicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/x-icon")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("ETag", h.favicon.etag)
	http.ServeContent(w, r, "favicon.ico", time.Time{}, bytes.NewReader(h.favicon.body))
}
