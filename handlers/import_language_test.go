package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// TestImportShortCJKLanguage: a short postmortem written in Chinese,
// Japanese or Korean is imported in its language, not in the default
// (English): its script tells the language on a few sentences, where
// trigram detection on Latin text needs more (and a short English text
// still gets the default).
func TestImportShortCJKLanguage(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct {
		name, body, lang string
	}{
		{"Chinese", "# 数据库连接池耗尽导致支付服务中断\n\n2023年6月14日，支付服务因数据库连接池耗尽而中断了约四十分钟。一次配置变更把连接池上限从两百调低到二十。\n\n## 影响\n\n大约一半的支付请求失败。\n", "zh"},
		{"Japanese", "# 証明書の期限切れによるログイン障害\n\n2022年3月8日、APIゲートウェイのTLS証明書が期限切れになり、約二時間ログインできませんでした。\n", "ja"},
		{"Korean", "# 인증서 만료로 인한 로그인 장애\n\n2022년 3월 8일, 게이트웨이의 TLS 인증서가 만료되어 두 시간 동안 로그인할 수 없었습니다.\n", "ko"},
		{"ShortEnglish", "# Cache flush\n\nA cache flush slowed the site for ten minutes.\n", "en"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, h, "/api/postmortems", "text/markdown", bytes.NewBufferString(tt.body))
			if rec.Code != http.StatusCreated {
				t.Fatalf("status = %d\n%s", rec.Code, rec.Body)
			}
			var got struct{ Language string }
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Language != tt.lang {
				t.Errorf("language = %q, want %q", got.Language, tt.lang)
			}
		})
	}
}

// TestImportCJKTitleSlug: a postmortem whose title has no Latin letters or
// digits (Chinese, Korean) gets a slug from its organization and date, not
// "postmortem", "postmortem-2", … for every one of them.
func TestImportCJKTitleSlug(t *testing.T) {
	t.Parallel()
	h, _ := newApp(t)
	for _, tt := range []struct{ body, slug string }{
		{"---\norganization: Acme Pay\nincident_date: 2023-06-14\n---\n# 数据库连接池耗尽导致支付服务中断\n\n支付服务因数据库连接池耗尽而中断了约四十分钟。一次配置变更把连接池上限从两百调低到二十。\n", "acme-pay-2023-06-14-postmortem"},
		{"---\nincident_date: 2022-03-08\n---\n# 인증서 만료로 인한 로그인 장애\n\n게이트웨이의 TLS 인증서가 만료되어 두 시간 동안 로그인할 수 없었습니다.\n", "2022-03-08-postmortem"},
		{"---\nincident_date: 2022-03-08\n---\n# 인증서 만료\n\n인증서가 다시 만료되어 한 시간 동안 로그인할 수 없었습니다.\n", "2022-03-08-postmortem-2"},
		{"# 인증서\n\n인증서가 만료되어 로그인할 수 없었습니다. 경보가 없었습니다.\n", "postmortem"},
	} {
		rec := post(t, h, "/api/postmortems", "text/markdown", bytes.NewBufferString(tt.body))
		if rec.Code != http.StatusCreated {
			t.Fatalf("status = %d\n%s", rec.Code, rec.Body)
		}
		var got struct{ Slug string }
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Slug != tt.slug {
			t.Errorf("slug = %q, want %q", got.Slug, tt.slug)
		}
	}
}
