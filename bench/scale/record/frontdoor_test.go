package record

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pickem/api/internal/capacity"
)

func TestReadFrontDoorWarmThroughput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "template.yaml")
	err := os.WriteFile(path, []byte(`Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      WarmThroughput: {ReadUnitsPerSecond: 60000, WriteUnitsPerSecond: 40000}
      GlobalSecondaryIndexes:
        - IndexName: GSI
          WarmThroughput: {ReadUnitsPerSecond: 50000, WriteUnitsPerSecond: 30000}
        - IndexName: Other
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := readFrontDoor(path)
	if err != nil {
		t.Fatal(err)
	}
	if fd.TableRCU() != 60000 || fd.TableWCU() != 40000 {
		t.Errorf("table %g RCU/s %g WCU/s, want 60,000 and 40,000", fd.TableRCU(), fd.TableWCU())
	}
	if r := fd.IndexRate("GSI"); r.Read != 50000 || r.Write != 30000 {
		t.Errorf("GSI %+v, want its own warm throughput 50,000 / 30,000", r)
	}
	if r := fd.IndexRate("Other"); r != capacity.OnDemandStart {
		t.Errorf("an index without warm throughput %+v, want a new on-demand index's %+v (not the table's)", r, capacity.OnDemandStart)
	}
	if fd.ReadCacheTTLSeconds != 2 {
		t.Errorf("read cache TTL %g s without the variable, want config's default 2 s", fd.ReadCacheTTLSeconds)
	}
}
