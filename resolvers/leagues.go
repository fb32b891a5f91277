package resolvers

import (
	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph/model"
)

// leagueView is how caller may see a league they are (member) or are not a member of:
// FORBIDDEN for a non-member who is not an admin.
func leagueView(caller auth.Identity, member bool) (domain.LeagueView, error) {
	switch {
	case member:
		return domain.LeagueAsMember, nil
	case caller.IsAdmin():
		return domain.LeagueAsAdmin, nil
	}
	return domain.LeagueAsPreview, errNotAMember()
}

func errNotAMember() error {
	return domain.Errorf(domain.CodeForbidden, "a league is visible to its members only: join it with its invite code")
}

func standingConnection(p domain.Page[domain.Standing]) *model.StandingConnection {
	c := &model.StandingConnection{Edges: make([]model.StandingEdge, len(p.Items)), PageInfo: pageInfo(p)}
	for i := range p.Items {
		c.Edges[i] = model.StandingEdge{Cursor: p.Cursors[i], Node: &p.Items[i]}
	}
	return c
}
