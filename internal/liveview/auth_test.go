package liveview

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAuth: without the token or with a wrong one, 401; the token in the
// query sets the HttpOnly cookie and redirects to the address without it;
// a POST needs the cookie and the page's own origin.
func TestAuth(t *testing.T) {
	s := &Server{token: "s3cret-token", cookie: "pcflow_view_7000"}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := s.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !sameOriginOK(r) {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		ok(w, r)
	}))
	good := &http.Cookie{Name: "pcflow_view_7000", Value: "s3cret-token"}
	for _, tc := range []struct {
		name, method, target, origin string
		cookie                       *http.Cookie
		want                         int
	}{
		{name: "no token", method: "GET", target: "/", want: 401},
		{name: "wrong token", method: "GET", target: "/?token=s3cret-tokem", want: 401},
		{name: "empty token", method: "GET", target: "/?token=", want: 401},
		{name: "wrong cookie", method: "GET", target: "/api/state", cookie: &http.Cookie{Name: "pcflow_view_7000", Value: "x"}, want: 401},
		{name: "another view's cookie", method: "GET", target: "/api/state", cookie: &http.Cookie{Name: "pcflow_view_7001", Value: "s3cret-token"}, want: 401},
		{name: "token", method: "GET", target: "/?token=s3cret-token", want: http.StatusSeeOther},
		{name: "token on a POST", method: "POST", target: "/api/control?token=s3cret-token", origin: "http://view.test", want: 401},
		{name: "cookie", method: "GET", target: "/api/state", cookie: good, want: http.StatusTeapot},
		{name: "POST same origin", method: "POST", target: "/api/control", origin: "http://view.test", cookie: good, want: http.StatusTeapot},
		{name: "POST other origin", method: "POST", target: "/api/control", origin: "http://evil.test", cookie: good, want: 403},
		{name: "POST no origin", method: "POST", target: "/api/control", cookie: good, want: 403},
	} {
		r := httptest.NewRequest(tc.method, "http://view.test"+tc.target, nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if tc.cookie != nil {
			r.AddCookie(tc.cookie)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: %s %s = %d, want %d", tc.name, tc.method, tc.target, w.Code, tc.want)
		}
		if tc.name == "token" {
			if loc := w.Header().Get("Location"); strings.Contains(loc, "token") {
				t.Errorf("redirect keeps the token: %s", loc)
			}
			c := w.Result().Cookies()
			if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Value != "s3cret-token" {
				t.Errorf("cookie = %+v, want one HttpOnly SameSite=Strict cookie with the token", c)
			}
		}
	}
}
