package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A request state is what the gateway hands a client of the stateless
// revision with an input_required result, for the client to echo back
// when it retries with its answers (multi round-trip requests): the
// upstream's own state, or the key of a call the gateway holds open, and
// what the request was for. It is integrity-protected and bound to the
// caller: a state altered, expired, issued for another request or to
// another caller is refused like one the gateway never issued. It is bound
// to the request's arguments too (a digest of them, see argumentsDigest):
// the retry must repeat the request it answers, so a state presented with
// other arguments is refused, as such (errStateArguments), and stays good
// for a retry with the arguments it was issued for.
//
// Wire form: <instance prefix>s1.<payload>.<mac>, base64url without
// padding. The prefix (Options.SessionIDPrefix) lets a balancer in front of
// several instances send a retry to the instance that issued its state,
// which matters when the gateway holds the call open (see pendingCall).

// stateVersion starts the part of a request state after the prefix.
const stateVersion = "s1"

// stateLifetime bounds how long a client may take to answer.
const stateLifetime = 30 * time.Minute

// roundState is a request state's content.
type roundState struct {
	Method   string `json:"m"`           // tools/call, prompts/get or resources/read
	Domain   string `json:"d"`           // the upstream
	Name     string `json:"n"`           // the tool, prompt or resource URI, as the upstream names it
	Upstream string `json:"u,omitempty"` // the upstream's own requestState
	Pending  string `json:"p,omitempty"` // a call held open by this instance
	Args     string `json:"a,omitempty"` // the request's arguments' digest, "" for none (argumentsDigest)
	// URLs marks a round of URL elicitations the gateway asked for an
	// upstream's -32042 (urlelicitation.go): how many, answered under
	// urlQuestionID(1..URLs); Rounds counts such rounds of the request.
	URLs    int   `json:"e,omitempty"`
	Rounds  int   `json:"r,omitempty"`
	Expires int64 `json:"x"` // Unix seconds
}

// errBadState refuses a retry whose request state does not hold.
var errBadState = refuse(jsonrpc.CodeInvalidParams,
	"requestState was not issued by this gateway for this request and caller, or it has expired; send the request again without requestState and inputResponses")

// errStateArguments refuses a retry whose request state was issued for the
// same request with other arguments: the answers it carries were asked for
// those. It never says what either arguments were.
var errStateArguments = refuse(jsonrpc.CodeInvalidParams,
	"requestState was issued for this request with other arguments; retry with the same arguments as the request that received this requestState, or send the request again without requestState and inputResponses to start over")

// stateKey is the secret request states are signed with: the configured
// one (shared by the instances behind one balancer), else one made at
// random when the gateway starts.
type stateKey []byte

// newStateKey returns the key for secret, or a random one if it is "".
func newStateKey(secret string) stateKey {
	if secret != "" {
		sum := sha256.Sum256([]byte("caddy-mcp-gateway request state\x00" + secret))
		return sum[:]
	}
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// seal signs s for caller, with the instance prefix in front, bound to the
// request's arguments args (as the client sent them).
func (k stateKey) seal(prefix string, caller Caller, s roundState, args json.RawMessage) string {
	s.Args = k.argumentsDigest(args)
	s.Expires = time.Now().Add(stateLifetime).Unix()
	payload, _ := json.Marshal(s)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return prefix + stateVersion + "." + p + "." + base64.RawURLEncoding.EncodeToString(k.mac(caller, p))
}

// open checks a request state against caller and the request it comes
// with (its method, upstream, tool, prompt or URI, and arguments args as
// the client sent them), and returns its content. A state that does not
// hold is errBadState; one that holds but was issued for other arguments,
// errStateArguments.
func (k stateKey) open(token string, caller Caller, method, domain, name string, args json.RawMessage) (roundState, error) {
	var s roundState
	dot := strings.LastIndexByte(token, '.')
	if dot < 0 {
		return s, errBadState
	}
	rest, sig := token[:dot], token[dot+1:]
	dot = strings.LastIndexByte(rest, '.')
	if dot < 0 || !strings.HasSuffix(rest[:dot], stateVersion) {
		return s, errBadState
	}
	p := rest[dot+1:]
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, k.mac(caller, p)) {
		return s, errBadState
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil || json.Unmarshal(payload, &s) != nil {
		return s, errBadState
	}
	if s.Method != method || s.Domain != domain || s.Name != name || time.Now().Unix() > s.Expires {
		return s, errBadState
	}
	if s.Args != k.argumentsDigest(args) {
		return s, errStateArguments
	}
	return s, nil
}

// mac binds a payload to the caller's identity.
func (k stateKey) mac(caller Caller, payload string) []byte {
	m := hmac.New(sha256.New, k)
	m.Write([]byte(caller.Identity()))
	m.Write([]byte{0})
	m.Write([]byte(payload))
	return m.Sum(nil)
}
