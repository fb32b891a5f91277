package record

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pickem/api/domain"
)

const (
	createLeagueDoc = `mutation($name: String!) { createLeague(name: $name) { id inviteCode } }`
	joinLeagueDoc   = `mutation($code: String!) { joinLeague(inviteCode: $code) { id } }`
)

// seedLeagues makes every one of players 1..n a member of k leagues (RecordOptions.Leagues)
// through the API, not recorded: the players are cut into groups of at most
// domain.MaxLeagueMembers; in each group, the first k players create one league each and
// every player of the group joins the group's other leagues. The joins go league by league
// in turn, so that the ones sent at once are for different leagues (a join updates its
// league's item).
func (h *harness) seedLeagues(ctx context.Context, n, k int) error {
	if k <= 0 {
		return nil
	}
	if k > domain.MaxLeaguesPerPlayer {
		return fmt.Errorf("scale: %d leagues per player: at most %d", k, domain.MaxLeaguesPerPlayer)
	}
	for first := 1; first <= n; first += domain.MaxLeagueMembers {
		last := min(n, first+domain.MaxLeagueMembers-1)
		if last-first+1 < k {
			return fmt.Errorf("scale: players %d to %d: too few for %d leagues each", first, last, k)
		}
		codes := make([]string, k)
		err := h.each(ctx, allPlayers(k), func(ctx context.Context, i int) error {
			p := first + i - 1
			a, err := h.untraced(ctx, Screen{Method: "POST", Document: createLeagueDoc}, h.token(playerID(p), playerName(p), false),
				map[string]any{"name": fmt.Sprintf("League %d-%d", first, i)})
			if err != nil {
				return err
			}
			var out struct {
				InviteCode string `json:"inviteCode"`
			}
			if err := json.Unmarshal(a.data["createLeague"], &out); err != nil {
				return err
			}
			codes[i-1] = out.InviteCode
			return nil
		})
		if err != nil {
			return err
		}
		// Join m: league m mod k, player first + m / k (skipping each league's owner).
		joins := allPlayers(k * (last - first + 1))
		err = h.each(ctx, joins, func(ctx context.Context, m int) error {
			league, p := (m-1)%k, first+(m-1)/k
			if p == first+league {
				return nil // its owner
			}
			_, err := h.untraced(ctx, Screen{Method: "POST", Document: joinLeagueDoc}, h.token(playerID(p), playerName(p), false),
				map[string]any{"code": codes[league]})
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
