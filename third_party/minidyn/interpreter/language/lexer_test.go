package language

import (
	"testing"
)

type testCase struct {
	expectedType    TokenType
	expectedLiteral string
}

func TestNextToken(t *testing.T) {
	table := map[string][]testCase{
		`v1`: {
			{IDENT, "v1"},
		},
		`a = b AND c`: {
			{IDENT, "a"},
			{EQ, "="},
			{IDENT, "b"},
			{AND, "AND"},
			{IDENT, "c"},
		},
		`a <> b`: {
			{IDENT, "a"},
			{NotEQ, "<>"},
			{IDENT, "b"},
		},
		`attribute_exists(:a)`: {
			{IDENT, "attribute_exists"},
			{LPAREN, "("},
			{IDENT, ":a"},
			{RPAREN, ")"},
		},
		`begins_with(:a, #s)`: {
			{IDENT, "begins_with"},
			{LPAREN, "("},
			{IDENT, ":a"},
			{COMMA, ","},
			{IDENT, "#s"},
			{RPAREN, ")"},
		},
		`contains(:a, #s)`: {
			{IDENT, "contains"},
			{LPAREN, "("},
			{IDENT, ":a"},
			{COMMA, ","},
			{IDENT, "#s"},
			{RPAREN, ")"},
		},
		`a <= b AND b >= c`: {
			{IDENT, "a"},
			{LTE, "<="},
			{IDENT, "b"},
			{AND, "AND"},
			{IDENT, "b"},
			{GTE, ">="},
			{IDENT, "c"},
		},
		`a IN (b, c)`: {
			{IDENT, "a"},
			{IN, "IN"},
			{LPAREN, "("},
			{IDENT, "b"},
			{COMMA, ","},
			{IDENT, "c"},
			{RPAREN, ")"},
		},
		`NOT a`: {
			{NOT, "NOT"},
			{IDENT, "a"},
		},
		`a >`: {
			{IDENT, "a"},
			{GT, ">"},
		},
		`b BETWEEN a AND c`: {
			{IDENT, "b"},
			{BETWEEN, "BETWEEN"},
			{IDENT, "a"},
			{AND, "AND"},
			{IDENT, "c"},
		},
		`a[1]`: {
			{IDENT, "a"},
			{LBRACKET, "["},
			{IDENT, "1"},
			{RBRACKET, "]"},
		},
		`a.f`: {
			{IDENT, "a"},
			{DOT, "."},
			{IDENT, "f"},
		},
		`a or b`: {
			{IDENT, "a"},
			{OR, "or"},
			{IDENT, "b"},
		},
		`a and b`: {
			{IDENT, "a"},
			{AND, "and"},
			{IDENT, "b"},
		},
		`not a`: {
			{NOT, "not"},
			{IDENT, "a"},
		},
		`a Or b`: {
			{IDENT, "a"},
			{OR, "Or"},
			{IDENT, "b"},
		},
	}

	for input, tests := range table {
		l := NewLexer(input)

		for i, tt := range tests {
			tok := l.NextToken()

			if tok.Type != tt.expectedType {
				t.Fatalf("for %s: tests[%d] - token type wrong. expected=%q, got=%q",
					input, i, tt.expectedType, tok.Type)
			}

			if tok.Literal != tt.expectedLiteral {
				t.Fatalf("for %s: tests[%d] - literal wrong. expected=%q, got=%q",
					input, i, tt.expectedLiteral, tok.Literal)
			}
		}
	}
}

func BenchmarkLexer(b *testing.B) {
	expected := []testCase{
		{IDENT, "a"},
		{LTE, "<="},
		{IDENT, "b"},
		{AND, "AND"},
		{IDENT, "b"},
		{GTE, ">="},
		{IDENT, "c"},
	}

	for n := 0; n < b.N; n++ {
		l := NewLexer(`a <= b AND b >= c`)

		for i, tt := range expected {
			tok := l.NextToken()

			if tok.Type != tt.expectedType {
				b.Fatalf("(%d) - token type wrong. expected=%q, got=%q", i, tt.expectedType, tok.Type)
			}

			if tok.Literal != tt.expectedLiteral {
				b.Fatalf("(%d) - token type wrong. expected=%q, got=%q", i, tt.expectedLiteral, tok.Literal)
			}
		}
	}
}
