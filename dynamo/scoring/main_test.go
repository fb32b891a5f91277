package scoring_test

import (
	"testing"

	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
