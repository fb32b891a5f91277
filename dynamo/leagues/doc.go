// Package leagues holds the league use cases of the store (Leagues: create, join by
// invite code, leave with the owner's hand-over, rotate the code, a player's leagues, a
// league's standings, and the moderators' rename and deletion), composed by
// dynamo.Store. Rules are domain's (names, codes, limits, domain.NextOwner); keys and
// items are package table's.
//
// The items (package table):
//
//   - the league item (LEAGUE#<lid>, LEAGUE): name, owner, member count, the current invite
//     code and rev, which grows with every change of the league or of its members;
//   - a member row per member in the league's partition (MEMBER#<uid>): name (kept current
//     by a player's rename: RenameMember) and join time (the longest-standing member is
//     the one with the earliest join, then the lowest id);
//   - the invite item of the current code (INVITE#<code>), a copy of what ByInvite shows
//     (name, owner, member count) so that it and Join read one item. Every transaction
//     that changes the league item's copied fields changes it the same way, and it exists
//     exactly while its code is the league's;
//   - in the player's partition, a membership row per league (the name version its rows
//     carry; whether the player owns it) and their league count (@LEAGUES: how many
//     leagues they are in, which the 20-league limit is a condition on).
//
// Every change is one transaction conditioned on what it read (or on nothing it did not
// read): joins on the code being current, the member cap and the player's league count;
// a leave that decides something (the last member, an owner's successor) on the league's
// rev. A league's writes go to its own partition and to its members' partitions: no
// write is shared by several leagues. A moderator's change (Rename, Delete) writes its
// audit entry (domain.AuditLogModeration) in the transaction of the change — for a
// deletion, which takes several transactions, in the last one (the league item's).
package leagues
