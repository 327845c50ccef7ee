// Package planimport turns what users already have into a plan: a HAR
// file (a browser's network log), a curl command line (a browser's "Copy
// as cURL") or vegeta's targets (its http or JSON format) become a
// `runner: http` group whose requests carry the method, URL, headers and
// body. Secrets (Authorization, Cookie and key- or token-like headers, a
// URL's password, token-like query parameters, password-like form
// fields) are replaced by ${VARS} that the plan's comment lists: their
// values are never written. Inputs are bounded (MaxInputBytes,
// MaxRequests, MaxBodyBytes) and an error names the input, the line and
// the field, with control bytes escaped.
package planimport
