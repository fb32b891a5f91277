// Package table is the layout of the store's one DynamoDB table: key attribute names and
// key builders (keys.go), the items as stored, with their dynamodbav tags and their
// conversions to domain types (rows.go, leagues.go, audit.go), the time format of stored
// instants, the conditions several writers share (expr.go), the page cursor codec
// (cursor.go), the card hash (cardhash.go), the rank table codec (scoring.go), item sizes
// as DynamoDB bills them (size.go), the table's definition (definition.go), and what
// benchmarks and tools need to reach items without spelling a key (layout.go).
//
// It is the only package that spells a key. It makes no call to DynamoDB and decides no
// rule (package domain does): it only says where things are and how they are encoded.
//
// The items:
//
//	item        PK                  SK              GSI_PK                    GSI_SK
//	user        USER#<uid>          USER            -                         -
//	event       EVENT               EVENT#<eid>     EVENT#<eid>               CARD#000
//	match       EVENT#<eid>         MATCH#<uuid>    EVENT#<eid>               CARD#<pos, 3 digits>
//	prediction  USER#<uid>          EVENT#<eid>     <the event's shard>       UNSCORED#<uid> | SCORE#<inv>#<uid>
//	standing    USER#<uid>          STANDINGS#<y>   <the season's shard>      SCORE#<inv>#<uid>
//	season      STANDINGS#<y>       SEASON          STANDINGS#<y>             INFO
//	lock copy   EVENT#<eid>#<cc>    LOCK            -                         -
//	checkpoint  EVENT#<eid>#<ss>    SCORING         -                         -
//	histogram   EVENT#<eid>#<ss>    RANKS           -                         -   (shard ss's scores)
//	histogram   STANDINGS#<y>#<ss>  RANKS           -                         -
//	rank table  EVENT#<eid>         RANKS           -                         -   (the shards summed)
//	rank table  STANDINGS#<y>       RANKS           -                         -
//	league      LEAGUE#<lid>        LEAGUE          -                         -
//	member      LEAGUE#<lid>        MEMBER#<uid>    -                         -
//	invite      INVITE#<code>       INVITE          -                         -
//	membership  USER#<uid>          @LEAGUE#<lid>   -                         -
//	league count USER#<uid>         @LEAGUES        -                         -
//	audit entry AUDIT#<log>         <at>#<nonce>    -                         -   (audit.go)
//
// <inv> is 999999999 − points, nine digits, so that ascending order is highest first and
// ties sort by user id. In an index partition the card ("CARD#…") sorts first, then the
// scored predictions ("SCORE#…"), then the unscored ones ("UNSCORED#…"): the card is one key
// range whatever the number of players, and the card with the top of a leaderboard is
// another.
//
// Shards. An event's predictions and a season's standings are spread over K index
// partitions, K being the event's or the season's own shard count (EventRow.Shards,
// SeasonRow.Shards), fixed when it is created (dynamo.WithScoreShards) and never changed. A
// player's shard is playerHash mod K. With K = 1 the one shard is the event's (or the
// season's) own index partition: the card and a leaderboard page are one Query, as is a
// standings page. With K > 1 shard ss is EVENT#<eid>#<ss> (STANDINGS#<y>#<ss>), and a page
// is K Queries merged by score key (by package dynamo). Scoring writes the shards at once, and
// keeps one checkpoint and one score histogram per shard in a main-table partition of the
// shard's own (EVENT#<eid>#<ss>), so that no item is written by every batch.
//
// Lock copies. An event has LockCopies(K) copies of what a submit's condition reads
// (LockRow), each in a partition of its own: a submit's transaction checks (and on a first
// prediction counts on) its player's copy, playerHash mod copies, never the event item, so
// concurrent submits of a big event are spread over many items. With K = 1 there is one.
package table
