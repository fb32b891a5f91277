package dynamo

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// nameCopies returns (name, version) of every prediction and standing in user's partition.
func (f *fixture) nameCopies(user string) map[string]string {
	f.t.Helper()
	out, err := f.db.Query(ctxT(f.t), &dynamodb.QueryInput{
		TableName: aws.String(f.table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.StringValue(table.UserPK(table.UserID(user)))},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	copies := map[string]string{}
	for _, item := range out.Items {
		if t := table.ItemType(item); t != table.TypePrediction && t != table.TypeStanding {
			continue
		}
		var row struct {
			SK      string `dynamodbav:"SK"`
			Name    string `dynamodbav:"userName"`
			Version int    `dynamodbav:"userNameVersion"`
		}
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			f.t.Fatal(err)
		}
		copies[row.SK] = row.Name + "@" + strconv.Itoa(row.Version)
	}
	return copies
}

// setNameCopy overwrites the copied name of one item, as a rename cut off before reaching it
// would have left it.
func (f *fixture) setNameCopy(user, sk, name string, version int) {
	f.t.Helper()
	_, err := f.db.UpdateItem(ctxT(f.t), &dynamodb.UpdateItemInput{
		TableName: aws.String(f.table), Key: table.Key(table.UserPK(table.UserID(user)), sk),
		UpdateExpression: aws.String("SET userName = :n, userNameVersion = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": table.StringValue(name), ":v": &types.AttributeValueMemberN{Value: strconv.Itoa(version)},
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func TestRegister(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	scored := f.createEvent("2030-03-05-reg-scored", 20, standardCard())
	open := f.createEvent("2030-03-20-reg-open", 20, standardCard())
	players := []string{"r-rename", "r-cut", "r-newer"}
	for _, u := range players {
		_, err := s.Register(ctx, u, "Old "+u)
		mustOK(t, err)
		f.submit(u, scored, 0, 0, 1)
	}
	f.lockAndResult(scored, 0, 0, 0)
	f.score(scored)
	for _, u := range players {
		f.submit(u, open, 1, 1, 1)
	}

	// allCopies checks that every copy of user's name is name at version.
	allCopies := func(t *testing.T, user, name string, version int) {
		t.Helper()
		copies := f.on(t).nameCopies(user)
		if len(copies) != 3 { // two predictions and a standing
			t.Fatalf("%d name copies: %v", len(copies), copies)
		}
		for sk, c := range copies {
			if want := name + "@" + strconv.Itoa(version); c != want {
				t.Errorf("%s: %s, want %s", sk, c, want)
			}
		}
	}

	t.Run("CreatesProfile", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		u, err := s.Register(ctx, "r-create", "  Rhea  ")
		mustOK(t, err)
		if u.ID != "r-create" || u.Name != "Rhea" || u.Standings == nil || len(u.Standings) != 0 {
			t.Errorf("user %+v", u)
		}
		got, _, err := s.GetUser(ctx, "r-create", 5, true)
		mustOK(t, err)
		if got.Name != "Rhea" {
			t.Errorf("stored name %q", got.Name)
		}
		profile, err := s.GetProfile(ctx, "r-create")
		mustOK(t, err)
		if profile.ID != "r-create" || profile.Name != "Rhea" || profile.Standings == nil {
			t.Errorf("GetProfile = %+v", profile)
		}
		if _, err := s.GetProfile(ctx, "r-nobody"); domain.ErrorCode(err) != domain.CodeNotFound {
			t.Errorf("GetProfile of an unregistered user: %v, want NOT_FOUND", err)
		}
		if _, err := s.GetProfile(ctx, strings.Repeat("x", 300)); domain.ErrorCode(err) != domain.CodeBadUserInput {
			t.Errorf("GetProfile of a malformed id: %v, want BAD_USER_INPUT", err)
		}
		again, err := s.Register(ctx, "r-create", "Rhea")
		mustOK(t, err)
		if again.Name != "Rhea" {
			t.Errorf("re-register %+v", again)
		}
		if row := f.getRaw(table.UserPK("r-create"), table.UserSK); table.ItemString(row, "name") != "Rhea" {
			t.Errorf("user item %v", row)
		}
	})

	t.Run("RenamePropagatesToPredictionsAndStandings", func(t *testing.T) {
		t.Parallel()
		u, err := s.Register(ctx, "r-rename", "scoring.New Name")
		mustOK(t, err)
		if u.Name != "scoring.New Name" || len(u.Standings) != 1 || u.Standings[0].User.Name != "scoring.New Name" || u.Standings[0].Points != 15 {
			t.Errorf("returned user %+v", u)
		}
		allCopies(t, "r-rename", "scoring.New Name", 2)
		p, err := s.GetPrediction(ctx, "r-rename", open.ID, true)
		mustOK(t, err)
		if p.User.Name != "scoring.New Name" {
			t.Errorf("prediction name %q", p.User.Name)
		}
		st, err := s.Standings(ctx, 2030, 10, "")
		mustOK(t, err)
		for _, row := range st.Items {
			if row.User.ID == "r-rename" && row.User.Name != "scoring.New Name" {
				t.Errorf("standing name %q", row.User.Name)
			}
		}
		_, lb, err := s.GetEventWithLeaderboard(ctx, scored.ID, 10, true)
		mustOK(t, err)
		for _, row := range lb.Items {
			if row.User.ID == "r-rename" && row.User.Name != "scoring.New Name" {
				t.Errorf("leaderboard name %q", row.User.Name)
			}
		}
	})

	t.Run("RenameCutOffHalfwayIsFinishedByNextRegister", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		_, err := s.Register(ctx, "r-cut", "Cut Name")
		mustOK(t, err)
		allCopies(t, "r-cut", "Cut Name", 2)
		// The user item holds version 2; two copies never got there.
		f.setNameCopy("r-cut", table.EventSK(table.EventID(open.ID)), "Old r-cut", 1)
		f.setNameCopy("r-cut", table.StandingSK(2030), "Old r-cut", 1)
		u, err := s.Register(ctx, "r-cut", "Cut Name")
		mustOK(t, err)
		allCopies(t, "r-cut", "Cut Name", 2)
		if u.Standings[0].User.Name != "Cut Name" {
			t.Errorf("returned standing %+v", u.Standings[0])
		}
	})

	t.Run("RenameCutOffThenRenamedAgain", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		_, err := s.Register(ctx, "r-newer", "Second")
		mustOK(t, err)
		f.setNameCopy("r-newer", table.EventSK(table.EventID(scored.ID)), "Old r-newer", 1)
		_, err = s.Register(ctx, "r-newer", "Third")
		mustOK(t, err)
		allCopies(t, "r-newer", "Third", 3)
	})

	t.Run("RegisteredNameIsCopiedOnSubmit", func(t *testing.T) {
		t.Parallel()
		_, err := s.Register(ctx, "r-first", "Registered")
		mustOK(t, err)
		p, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "r-first", Name: "Token Name"}, open.ID, domain.Entry{Picks: picks(open, 0)})
		mustOK(t, err)
		if p.User.Name != "Registered" {
			t.Errorf("prediction name %q, want the registered one", p.User.Name)
		}
	})

	t.Run("NameRules", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name, id, in, want string
			code               domain.Code
		}{
			{"TrimsSpaces", "r-n1", " \t Trimmed \n", "Trimmed", ""},
			{"FortyCharacters", "r-n2", strings.Repeat("a", 40), strings.Repeat("a", 40), ""},
			{"FortyRunes", "r-n3", strings.Repeat("é", 40), strings.Repeat("é", 40), ""},
			{"OneCharacter", "r-n4", "x", "x", ""},
			{"Empty", "r-n5", "", "", domain.CodeBadUserInput},
			{"OnlySpaces", "r-n6", "   ", "", domain.CodeBadUserInput},
			{"FortyOneCharacters", "r-n7", strings.Repeat("a", 41), "", domain.CodeBadUserInput},
			{"FortyOneRunes", "r-n8", strings.Repeat("é", 41), "", domain.CodeBadUserInput},
			{"InvalidUTF8", "r-n9", "a\xffb", "", domain.CodeBadUserInput},
			{"MalformedUserID", "r#n", "Name", "", domain.CodeBadUserInput},
			{"EmptyUserID", "", "Name", "", domain.CodeBadUserInput},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				u, err := s.Register(ctx, tt.id, tt.in)
				wantCode(t, err, tt.code)
				if tt.code == "" && u.Name != tt.want {
					t.Errorf("name %q, want %q", u.Name, tt.want)
				}
				if tt.code != "" && tt.id != "" && !strings.Contains(tt.id, "#") {
					_, _, err := s.GetUser(ctx, tt.id, 1, true)
					wantCode(t, err, domain.CodeNotFound)
				}
			})
		}
	})
}
