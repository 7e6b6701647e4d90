package markdown

import (
	"strconv"
	"sync"

	"github.com/yuin/goldmark/ast"
)

// Images load lazily, and an image whose size is known is drawn at that
// size before it arrives, so that the page does not jump as it loads.

// ImageSizer gives the width and height of the image at a URL (an
// attachment's, /attachments/…), ok false when it does not know.
type ImageSizer func(dest string) (width, height int, ok bool)

var sizers struct {
	sync.RWMutex
	list []ImageSizer
}

// AddImageSizer lets Render, Section and Inline ask f the size of the
// images they render; the sizer added last is asked first. A server adds
// one, for its attachments; tests that run several add one each.
func AddImageSizer(f ImageSizer) {
	sizers.Lock()
	defer sizers.Unlock()
	sizers.list = append([]ImageSizer{f}, sizers.list...)
}

func imageSize(dest string) (int, int, bool) {
	sizers.RLock()
	defer sizers.RUnlock()
	for _, f := range sizers.list {
		if w, h, ok := f(dest); ok {
			return w, h, true
		}
	}
	return 0, 0, false
}

// sizeImages marks every image of doc loading="lazy", with its width and
// height when a sizer knows them.
func sizeImages(doc ast.Node) {
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		img, ok := n.(*ast.Image)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		img.SetAttributeString("loading", []byte("lazy"))
		if w, h, ok := imageSize(string(img.Destination)); ok {
			img.SetAttributeString("width", []byte(strconv.Itoa(w)))
			img.SetAttributeString("height", []byte(strconv.Itoa(h)))
		}
		return ast.WalkSkipChildren, nil
	})
}
