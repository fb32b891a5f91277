// Package users holds the use cases of players' accounts (Accounts), composed by
// dynamo.Store: a profile (Register, Profile), its name copied onto every item that shows
// it (predictions, standings, league rows) on every rename, the moderators' rename (with
// its audit entry in the rename's transaction), and an account's deletion with what
// counts its predictions and standings. Rules are domain's (names: domain.CleanPlayerName);
// keys and items are package table's; a player's profile page, mostly predictions, is
// read by dynamo.Store.GetUser.
package users
