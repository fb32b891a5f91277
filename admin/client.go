package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// client sends GraphQL operations to the API with an optional bearer token.
type client struct {
	url   string
	token string
	data  string // the local state directory (-data), for commands that read it
	http  *http.Client
}

func newClient(url, token string) *client {
	// Scoring a big event can take minutes; nothing else comes close.
	return &client{url: url, token: token, http: &http.Client{Timeout: 10 * time.Minute}}
}

// gqlError is one entry of a GraphQL response's errors, with its extensions.code.
type gqlError struct {
	Message    string     `json:"message"`
	Extensions extensions `json:"extensions"`
}

type extensions struct {
	Code string `json:"code"`
}

// gqlErrors is the errors list of a response that had any; it is what do returns for them.
type gqlErrors []gqlError

func (es gqlErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.code() + ": " + e.Message
	}
	return strings.Join(lines, "\n")
}

func (e gqlError) code() string {
	if e.Extensions.Code == "" {
		return "ERROR"
	}
	return e.Extensions.Code
}

// has reports whether any error carries code.
func (es gqlErrors) has(code string) bool {
	for _, e := range es {
		if e.Extensions.Code == code {
			return true
		}
	}
	return false
}

// do runs one operation and decodes its data into data. A response with errors returns them
// as gqlErrors (data is then left alone); anything else that goes wrong is a plain error.
func (c *client) do(ctx context.Context, query string, vars map[string]any, data any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("bad -url %q: %w", c.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the API at %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", c.url, err)
	}
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors gqlErrors       `json:"errors"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("%s answered HTTP %d, not GraphQL: %s", c.url, resp.StatusCode, snippet(raw))
	}
	if len(out.Errors) > 0 {
		return out.Errors
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered HTTP %d: %s", c.url, resp.StatusCode, snippet(raw))
	}
	if err := json.Unmarshal(out.Data, data); err != nil {
		return fmt.Errorf("unexpected data from %s: %w", c.url, err)
	}
	return nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// connection is one page of a GraphQL connection whose nodes decode as T.
type connection[T any] struct {
	Edges []struct {
		Node T `json:"node"`
	} `json:"edges"`
	PageInfo struct {
		HasNextPage bool    `json:"hasNextPage"`
		EndCursor   *string `json:"endCursor"`
	} `json:"pageInfo"`
}

// fetchPages runs query, whose result is the connection field with variables $first and
// $after (besides vars), page after page (at most 100 nodes each, the API's limit) until
// it has first nodes or the list ends.
func fetchPages[T any](ctx context.Context, c *client, field, query string, vars map[string]any, first int) ([]T, error) {
	var nodes []T
	var after *string
	for len(nodes) < first {
		page := map[string]any{"first": min(first-len(nodes), 100), "after": after}
		for k, v := range vars {
			page[k] = v
		}
		var data map[string]connection[T]
		if err := c.do(ctx, query, page, &data); err != nil {
			return nil, err
		}
		conn := data[field]
		for _, e := range conn.Edges {
			nodes = append(nodes, e.Node)
		}
		if !conn.PageInfo.HasNextPage {
			break
		}
		after = conn.PageInfo.EndCursor
	}
	return nodes, nil
}
