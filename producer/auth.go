package producer

// This file holds the credentials a producer asks of every subscriber, on
// its event streams as on its reply endpoints: a bearer token
// (Options.Token) on every binding that carries one, and, when it takes
// only signed replies, a subscription that offered an accepted key before
// any event is streamed.

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// bearerOK reports whether the value of an Authorization header (or gRPC
// "authorization" metadata) carries the producer's token; with no token
// configured, anything does.
func (p *Producer) bearerOK(authorization string) bool {
	if p.opts.Token == "" {
		return true
	}
	scheme, token, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(p.opts.Token)) == 1
}

// authorized serves r when it carries the token: every endpoint asks for
// it, the event streams as the reply endpoints, but the manifest, which is
// public.
func (p *Producer) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathManifest && !p.bearerOK(r.Header.Get("Authorization")) {
			p.opts.Logf("producer: refused %s %s without the token", r.Method, r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="aaep"`)
			writeError(w, http.StatusUnauthorized, "this producer needs a token: send Authorization: Bearer <token>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// signedOnly says whether the producer takes only signed replies, or only
// from pinned keys.
func (p *Producer) signedOnly() bool {
	return p.opts.RequireSignedReplies || len(p.opts.PinnedKeys) > 0
}

// legacyStream serves the deployed layout's GET /events, which has no
// handshake: a producer that takes only signed replies streams its events
// (and their reply tokens) only to a subscription that offered a key it
// accepts, so it refuses this stream as its reply endpoints refuse an
// unsigned reply.
func (p *Producer) legacyStream(w http.ResponseWriter, r *http.Request) {
	if p.signedOnly() {
		p.opts.Logf("producer: refused the %s stream: signed replies are required", protocol.PathLegacyEvents)
		writeError(w, http.StatusUnauthorized, "this producer takes only signed replies, so it streams events only to a subscription that offered a key ("+
			sigrpl.Namespace+"): POST a subscription.request to "+protocol.PathSubscriptions)
		return
	}
	p.serveStream(w, r, nil)
}

// grpcAuth refuses a gRPC stream without the token in its "authorization"
// metadata.
func (p *Producer) grpcAuth(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := p.grpcBearer(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}

func (p *Producer) grpcBearer(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	var auth string
	if v := md.Get("authorization"); len(v) > 0 {
		auth = v[0]
	}
	if !p.bearerOK(auth) {
		p.opts.Logf("producer: refused a gRPC stream without the token")
		return status.Error(codes.Unauthenticated, "this producer needs a token: send authorization: Bearer <token>")
	}
	return nil
}
