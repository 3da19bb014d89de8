-- An fpdb-3 database holding four captured OFC hands (see README.md): the three tables exactly as
-- fpdb_3_legacy/http_capture_ofc.py (ensure_ofc_tables, jejellyroll-fr/fpdb-3 @ 73e75ffe) creates them,
-- filled as its import_ofc_hand fills them. Hand ids 1, 2, 3 and 5: id 4 went when hand 48213391 was
-- imported again (fpdb deletes the old rows and inserts new ones).

CREATE TABLE IF NOT EXISTS HttpOFCHands (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            site TEXT NOT NULL,
            siteHandNo TEXT NOT NULL UNIQUE,
            tableName TEXT,
            startTime TEXT,
            variant TEXT,
            pineapple INTEGER,
            deuceToSeven INTEGER,
            rounds INTEGER,
            validationStatus TEXT,
            rawJson TEXT
        );
CREATE TABLE IF NOT EXISTS HttpOFCPlayers (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ofcHandId INTEGER NOT NULL,
            playerName TEXT NOT NULL,
            seatNo INTEGER,
            startStack REAL,
            points REAL,
            collected REAL,
            topCards TEXT,
            middleCards TEXT,
            bottomCards TEXT
        );
CREATE TABLE IF NOT EXISTS HttpOFCRounds (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ofcHandId INTEGER NOT NULL,
            roundNo INTEGER,
            stepNo INTEGER,
            playerName TEXT,
            dealt TEXT,
            placedJson TEXT,
            discarded TEXT
        );

-- hand 48213377: Pineapple, both players' deals seen (the hand of ofchand_48213377.json)
INSERT INTO HttpOFCHands (id, site, siteHandNo, tableName, startTime, variant, pineapple, deuceToSeven, rounds, validationStatus, rawJson) VALUES (1, 'SealsWithClubs', '48213377', '90112', '2026-05-02T19:44:10.512Z', 'ofcp', 1, 0, 20, 'valid', '{"hand_id": 48213377, "players": [{"active": [], "bottom": ["9c", "9d", "Kh", "Ks", "Kd"], "collected": "1.9", "middle": ["4h", "5h", "6d", "7c", "8s"], "name": "alice", "points": "19", "seat_idx": 2, "starting_stack": "250.0", "top": ["Qc", "Qd", "3s"]}, {"active": [], "bottom": ["8h", "9h", "Jh", "Qh", "2h"], "collected": "0", "middle": ["10d", "10s", "6c", "6h", "Ac"], "name": "bob", "points": "-19", "seat_idx": 5, "starting_stack": "180.5", "top": ["2d", "5c", "Js"]}], "raw_refs": ["raw_messages.jsonl:311", "raw_messages.jsonl:342"], "result": {"collections": [{"player": "alice", "pot": "1.9", "source": "swc_game_state_event", "step_num": 32, "street": "UNKNOWN"}], "points_breakdown": {}, "points_settled": {"alice": 19, "bob": -19}, "rows": {"alice": {"bot": "Full House", "mid": "Straight", "top": "Pair of Queens"}, "bob": {"bot": "Flush", "mid": "Two Pair", "top": "High Card"}}}, "rounds": [{"active": ["Qc", "4h", "5h", "9c", "9d"], "dealt": ["Qc", "4h", "5h", "9c", "9d"], "discarded": [], "layout": {"bottom": ["--", "--", "--", "--", "--"], "middle": ["--", "--", "--", "--", "--"], "top": ["--", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 1, "source": "ofc_snapshot_rows", "step_num": 1}, {"active": ["2d", "10d", "10s", "8h", "9h"], "dealt": ["2d", "10d", "10s", "8h", "9h"], "discarded": [], "layout": {"bottom": ["--", "--", "--", "--", "--"], "middle": ["--", "--", "--", "--", "--"], "top": ["--", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "bob", "round": 2, "source": "ofc_snapshot_rows", "step_num": 1}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9c", "9d", "--", "--", "--"], "middle": ["4h", "5h", "--", "--", "--"], "top": ["Qc", "--", "--"]}, "placed": {"bottom": ["9c", "9d"], "middle": ["4h", "5h"], "top": ["Qc"]}, "placed_slots": {"bottom": [{"card": "9c", "index": 0}, {"card": "9d", "index": 1}], "middle": [{"card": "4h", "index": 0}, {"card": "5h", "index": 1}], "top": [{"card": "Qc", "index": 0}]}, "player": "alice", "round": 3, "source": "ofc_snapshot_rows", "step_num": 2}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["8h", "9h", "--", "--", "--"], "middle": ["10d", "10s", "--", "--", "--"], "top": ["2d", "--", "--"]}, "placed": {"bottom": ["8h", "9h"], "middle": ["10d", "10s"], "top": ["2d"]}, "placed_slots": {"bottom": [{"card": "8h", "index": 0}, {"card": "9h", "index": 1}], "middle": [{"card": "10d", "index": 0}, {"card": "10s", "index": 1}], "top": [{"card": "2d", "index": 0}]}, "player": "bob", "round": 4, "source": "ofc_snapshot_rows", "step_num": 3}, {"active": ["Kh", "Ks", "2c"], "dealt": ["Kh", "Ks", "2c"], "discarded": [], "layout": {"bottom": ["9c", "9d", "--", "--", "--"], "middle": ["4h", "5h", "--", "--", "--"], "top": ["Qc", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 5, "source": "ofc_snapshot_rows", "step_num": 4}, {"active": ["Jh", "Qh", "3c"], "dealt": ["Jh", "Qh", "3c"], "discarded": [], "layout": {"bottom": ["8h", "9h", "--", "--", "--"], "middle": ["10d", "10s", "--", "--", "--"], "top": ["2d", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "bob", "round": 6, "source": "ofc_snapshot_rows", "step_num": 4}, {"active": [], "dealt": [], "discarded": ["2c"], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "--"], "middle": ["4h", "5h", "--", "--", "--"], "top": ["Qc", "--", "--"]}, "placed": {"bottom": ["Kh", "Ks"]}, "placed_slots": {"bottom": [{"card": "Kh", "index": 2}, {"card": "Ks", "index": 3}]}, "player": "alice", "round": 7, "source": "ofc_snapshot_rows", "step_num": 5}, {"active": [], "dealt": [], "discarded": ["3c"], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "--"], "middle": ["10d", "10s", "--", "--", "--"], "top": ["2d", "--", "--"]}, "placed": {"bottom": ["Jh", "Qh"]}, "placed_slots": {"bottom": [{"card": "Jh", "index": 2}, {"card": "Qh", "index": 3}]}, "player": "bob", "round": 8, "source": "ofc_snapshot_rows", "step_num": 6}, {"active": ["Qd", "6d", "7d"], "dealt": ["Qd", "6d", "7d"], "discarded": [], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "--"], "middle": ["4h", "5h", "--", "--", "--"], "top": ["Qc", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 9, "source": "ofc_snapshot_rows", "step_num": 7}, {"active": ["6c", "6h", "4d"], "dealt": ["6c", "6h", "4d"], "discarded": [], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "--"], "middle": ["10d", "10s", "--", "--", "--"], "top": ["2d", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "bob", "round": 10, "source": "ofc_snapshot_rows", "step_num": 7}, {"active": [], "dealt": [], "discarded": ["7d"], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "--"], "middle": ["4h", "5h", "6d", "--", "--"], "top": ["Qc", "Qd", "--"]}, "placed": {"middle": ["6d"], "top": ["Qd"]}, "placed_slots": {"middle": [{"card": "6d", "index": 2}], "top": [{"card": "Qd", "index": 1}]}, "player": "alice", "round": 11, "source": "ofc_snapshot_rows", "step_num": 8}, {"active": [], "dealt": [], "discarded": ["4d"], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "--"], "middle": ["10d", "10s", "6c", "6h", "--"], "top": ["2d", "--", "--"]}, "placed": {"middle": ["6c", "6h"]}, "placed_slots": {"middle": [{"card": "6c", "index": 2}, {"card": "6h", "index": 3}]}, "player": "bob", "round": 12, "source": "ofc_snapshot_rows", "step_num": 9}, {"active": ["7c", "Kd", "10c"], "dealt": ["7c", "Kd", "10c"], "discarded": [], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "--"], "middle": ["4h", "5h", "6d", "--", "--"], "top": ["Qc", "Qd", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 13, "source": "ofc_snapshot_rows", "step_num": 10}, {"active": ["5c", "2h", "8d"], "dealt": ["5c", "2h", "8d"], "discarded": [], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "--"], "middle": ["10d", "10s", "6c", "6h", "--"], "top": ["2d", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "bob", "round": 14, "source": "ofc_snapshot_rows", "step_num": 10}, {"active": [], "dealt": [], "discarded": ["10c"], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "Kd"], "middle": ["4h", "5h", "6d", "7c", "--"], "top": ["Qc", "Qd", "--"]}, "placed": {"bottom": ["Kd"], "middle": ["7c"]}, "placed_slots": {"bottom": [{"card": "Kd", "index": 4}], "middle": [{"card": "7c", "index": 3}]}, "player": "alice", "round": 15, "source": "ofc_snapshot_rows", "step_num": 11}, {"active": [], "dealt": [], "discarded": ["8d"], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "2h"], "middle": ["10d", "10s", "6c", "6h", "--"], "top": ["2d", "5c", "--"]}, "placed": {"bottom": ["2h"], "top": ["5c"]}, "placed_slots": {"bottom": [{"card": "2h", "index": 4}], "top": [{"card": "5c", "index": 1}]}, "player": "bob", "round": 16, "source": "ofc_snapshot_rows", "step_num": 12}, {"active": ["3s", "8s", "As"], "dealt": ["3s", "8s", "As"], "discarded": [], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "Kd"], "middle": ["4h", "5h", "6d", "7c", "--"], "top": ["Qc", "Qd", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 17, "source": "ofc_snapshot_rows", "step_num": 13}, {"active": ["Js", "Ac", "Ad"], "dealt": ["Js", "Ac", "Ad"], "discarded": [], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "2h"], "middle": ["10d", "10s", "6c", "6h", "--"], "top": ["2d", "5c", "--"]}, "placed": {}, "placed_slots": {}, "player": "bob", "round": 18, "source": "ofc_snapshot_rows", "step_num": 13}, {"active": [], "dealt": [], "discarded": ["As"], "layout": {"bottom": ["9c", "9d", "Kh", "Ks", "Kd"], "middle": ["4h", "5h", "6d", "7c", "8s"], "top": ["Qc", "Qd", "3s"]}, "placed": {"middle": ["8s"], "top": ["3s"]}, "placed_slots": {"middle": [{"card": "8s", "index": 4}], "top": [{"card": "3s", "index": 2}]}, "player": "alice", "round": 19, "source": "ofc_snapshot_rows", "step_num": 14}, {"active": [], "dealt": [], "discarded": ["Ad"], "layout": {"bottom": ["8h", "9h", "Jh", "Qh", "2h"], "middle": ["10d", "10s", "6c", "6h", "Ac"], "top": ["2d", "5c", "Js"]}, "placed": {"middle": ["Ac"], "top": ["Js"]}, "placed_slots": {"middle": [{"card": "Ac", "index": 4}], "top": [{"card": "Js", "index": 2}]}, "player": "bob", "round": 20, "source": "ofc_snapshot_rows", "step_num": 15}], "site": "SealsWithClubs", "table_id": 90112, "timestamp": "2026-05-02T19:44:10.512Z", "validation": {"errors": [], "valid": true, "warnings": []}, "variant": {"deuce_to_seven": false, "family": "ofc", "hand_py_importable": false, "pineapple": true, "rows": {"bottom": 5, "middle": 5, "top": 3}, "variant": "ofcp"}}');
INSERT INTO HttpOFCPlayers VALUES (1, 1, 'alice', 2, 250.0, 19.0, 1.9, 'Qc Qd 3s', '4h 5h 6d 7c 8s', '9c 9d Kh Ks Kd');
INSERT INTO HttpOFCPlayers VALUES (2, 1, 'bob', 5, 180.5, -19.0, 0.0, '2d 5c Js', '10d 10s 6c 6h Ac', '8h 9h Jh Qh 2h');
INSERT INTO HttpOFCRounds VALUES (1, 1, 1, 1, 'alice', 'Qc 4h 5h 9c 9d', '{}', '');
INSERT INTO HttpOFCRounds VALUES (2, 1, 2, 1, 'bob', '2d 10d 10s 8h 9h', '{}', '');
INSERT INTO HttpOFCRounds VALUES (3, 1, 3, 2, 'alice', '', '{"bottom": ["9c", "9d"], "middle": ["4h", "5h"], "top": ["Qc"]}', '');
INSERT INTO HttpOFCRounds VALUES (4, 1, 4, 3, 'bob', '', '{"bottom": ["8h", "9h"], "middle": ["10d", "10s"], "top": ["2d"]}', '');
INSERT INTO HttpOFCRounds VALUES (5, 1, 5, 4, 'alice', 'Kh Ks 2c', '{}', '');
INSERT INTO HttpOFCRounds VALUES (6, 1, 6, 4, 'bob', 'Jh Qh 3c', '{}', '');
INSERT INTO HttpOFCRounds VALUES (7, 1, 7, 5, 'alice', '', '{"bottom": ["Kh", "Ks"]}', '2c');
INSERT INTO HttpOFCRounds VALUES (8, 1, 8, 6, 'bob', '', '{"bottom": ["Jh", "Qh"]}', '3c');
INSERT INTO HttpOFCRounds VALUES (9, 1, 9, 7, 'alice', 'Qd 6d 7d', '{}', '');
INSERT INTO HttpOFCRounds VALUES (10, 1, 10, 7, 'bob', '6c 6h 4d', '{}', '');
INSERT INTO HttpOFCRounds VALUES (11, 1, 11, 8, 'alice', '', '{"middle": ["6d"], "top": ["Qd"]}', '7d');
INSERT INTO HttpOFCRounds VALUES (12, 1, 12, 9, 'bob', '', '{"middle": ["6c", "6h"]}', '4d');
INSERT INTO HttpOFCRounds VALUES (13, 1, 13, 10, 'alice', '7c Kd 10c', '{}', '');
INSERT INTO HttpOFCRounds VALUES (14, 1, 14, 10, 'bob', '5c 2h 8d', '{}', '');
INSERT INTO HttpOFCRounds VALUES (15, 1, 15, 11, 'alice', '', '{"bottom": ["Kd"], "middle": ["7c"]}', '10c');
INSERT INTO HttpOFCRounds VALUES (16, 1, 16, 12, 'bob', '', '{"bottom": ["2h"], "top": ["5c"]}', '8d');
INSERT INTO HttpOFCRounds VALUES (17, 1, 17, 13, 'alice', '3s 8s As', '{}', '');
INSERT INTO HttpOFCRounds VALUES (18, 1, 18, 13, 'bob', 'Js Ac Ad', '{}', '');
INSERT INTO HttpOFCRounds VALUES (19, 1, 19, 14, 'alice', '', '{"middle": ["8s"], "top": ["3s"]}', 'As');
INSERT INTO HttpOFCRounds VALUES (20, 1, 20, 15, 'bob', '', '{"middle": ["Ac"], "top": ["Js"]}', 'Ad');

-- hand 48213380: Pineapple, alice in Fantasyland (dealt 14), bob's deals hidden
INSERT INTO HttpOFCHands (id, site, siteHandNo, tableName, startTime, variant, pineapple, deuceToSeven, rounds, validationStatus, rawJson) VALUES (2, 'SealsWithClubs', '48213380', '90112', '2026-05-02T19:47:55.031Z', 'ofcp', 1, 0, 7, 'valid', '{"hand_id": 48213380, "players": [{"active": [], "bottom": ["4s", "5s", "7s", "9s", "Qs"], "collected": "1.7", "middle": ["3h", "3d", "3c", "8d", "Jc"], "name": "alice", "points": "17", "seat_idx": 2, "starting_stack": "251.9", "top": ["Kc", "Kd", "2s"]}, {"active": [], "bottom": ["9h", "10d", "Jd", "Qh", "Kh"], "collected": "0", "middle": ["10c", "10h", "5d", "5h", "2c"], "name": "bob", "points": "-17", "seat_idx": 5, "starting_stack": "178.6", "top": ["6d", "6s", "2d"]}], "raw_refs": ["raw_messages.jsonl:377", "raw_messages.jsonl:391"], "result": {"collections": [{"player": "alice", "pot": "1.7", "source": "swc_game_state_event", "step_num": 8, "street": "UNKNOWN"}], "points_breakdown": {}, "points_settled": {"alice": 17, "bob": -17}, "rows": {"alice": {"bot": "Flush", "mid": "Three of a Kind", "top": "Pair of Kings"}, "bob": {"bot": "Straight", "mid": "Two Pair", "top": "Pair of Sixes"}}}, "rounds": [{"active": ["Kc", "Kd", "2s", "3h", "3d", "3c", "8d", "Jc", "4s", "5s", "7s", "9s", "Qs", "6h"], "dealt": ["Kc", "Kd", "2s", "3h", "3d", "3c", "8d", "Jc", "4s", "5s", "7s", "9s", "Qs", "6h"], "discarded": [], "layout": {"bottom": ["--", "--", "--", "--", "--"], "middle": ["--", "--", "--", "--", "--"], "top": ["--", "--", "--"]}, "placed": {}, "placed_slots": {}, "player": "alice", "round": 1, "source": "ofc_snapshot_rows", "step_num": 1}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9h", "10d", "--", "--", "--"], "middle": ["10c", "10h", "--", "--", "--"], "top": ["6d", "--", "--"]}, "placed": {"bottom": ["9h", "10d"], "middle": ["10c", "10h"], "top": ["6d"]}, "placed_slots": {"bottom": [{"card": "9h", "index": 0}, {"card": "10d", "index": 1}], "middle": [{"card": "10c", "index": 0}, {"card": "10h", "index": 1}], "top": [{"card": "6d", "index": 0}]}, "player": "bob", "round": 2, "source": "ofc_snapshot_rows", "step_num": 2}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9h", "10d", "--", "--", "--"], "middle": ["10c", "10h", "5d", "5h", "--"], "top": ["6d", "--", "--"]}, "placed": {"middle": ["5d", "5h"]}, "placed_slots": {"middle": [{"card": "5d", "index": 2}, {"card": "5h", "index": 3}]}, "player": "bob", "round": 3, "source": "ofc_snapshot_rows", "step_num": 3}, {"active": [], "dealt": [], "discarded": ["6h"], "layout": {"bottom": ["4s", "5s", "7s", "9s", "Qs"], "middle": ["3h", "3d", "3c", "8d", "Jc"], "top": ["Kc", "Kd", "2s"]}, "placed": {"bottom": ["4s", "5s", "7s", "9s", "Qs"], "middle": ["3h", "3d", "3c", "8d", "Jc"], "top": ["Kc", "Kd", "2s"]}, "placed_slots": {"bottom": [{"card": "4s", "index": 0}, {"card": "5s", "index": 1}, {"card": "7s", "index": 2}, {"card": "9s", "index": 3}, {"card": "Qs", "index": 4}], "middle": [{"card": "3h", "index": 0}, {"card": "3d", "index": 1}, {"card": "3c", "index": 2}, {"card": "8d", "index": 3}, {"card": "Jc", "index": 4}], "top": [{"card": "Kc", "index": 0}, {"card": "Kd", "index": 1}, {"card": "2s", "index": 2}]}, "player": "alice", "round": 4, "source": "ofc_snapshot_rows", "step_num": 4}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9h", "10d", "Jd", "--", "--"], "middle": ["10c", "10h", "5d", "5h", "--"], "top": ["6d", "6s", "--"]}, "placed": {"bottom": ["Jd"], "top": ["6s"]}, "placed_slots": {"bottom": [{"card": "Jd", "index": 2}], "top": [{"card": "6s", "index": 1}]}, "player": "bob", "round": 5, "source": "ofc_snapshot_rows", "step_num": 5}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9h", "10d", "Jd", "Qh", "--"], "middle": ["10c", "10h", "5d", "5h", "2c"], "top": ["6d", "6s", "--"]}, "placed": {"bottom": ["Qh"], "middle": ["2c"]}, "placed_slots": {"bottom": [{"card": "Qh", "index": 3}], "middle": [{"card": "2c", "index": 4}]}, "player": "bob", "round": 6, "source": "ofc_snapshot_rows", "step_num": 6}, {"active": [], "dealt": [], "discarded": [], "layout": {"bottom": ["9h", "10d", "Jd", "Qh", "Kh"], "middle": ["10c", "10h", "5d", "5h", "2c"], "top": ["6d", "6s", "2d"]}, "placed": {"bottom": ["Kh"], "top": ["2d"]}, "placed_slots": {"bottom": [{"card": "Kh", "index": 4}], "top": [{"card": "2d", "index": 2}]}, "player": "bob", "round": 7, "source": "ofc_snapshot_rows", "step_num": 7}], "site": "SealsWithClubs", "table_id": 90112, "timestamp": "2026-05-02T19:47:55.031Z", "validation": {"errors": [], "valid": true, "warnings": []}, "variant": {"deuce_to_seven": false, "family": "ofc", "hand_py_importable": false, "pineapple": true, "rows": {"bottom": 5, "middle": 5, "top": 3}, "variant": "ofcp"}}');
INSERT INTO HttpOFCPlayers VALUES (3, 2, 'alice', 2, 251.9, 17.0, 1.7, 'Kc Kd 2s', '3h 3d 3c 8d Jc', '4s 5s 7s 9s Qs');
INSERT INTO HttpOFCPlayers VALUES (4, 2, 'bob', 5, 178.6, -17.0, 0.0, '6d 6s 2d', '10c 10h 5d 5h 2c', '9h 10d Jd Qh Kh');
INSERT INTO HttpOFCRounds VALUES (21, 2, 1, 1, 'alice', 'Kc Kd 2s 3h 3d 3c 8d Jc 4s 5s 7s 9s Qs 6h', '{}', '');
INSERT INTO HttpOFCRounds VALUES (22, 2, 2, 2, 'bob', '', '{"bottom": ["9h", "10d"], "middle": ["10c", "10h"], "top": ["6d"]}', '');
INSERT INTO HttpOFCRounds VALUES (23, 2, 3, 3, 'bob', '', '{"middle": ["5d", "5h"]}', '');
INSERT INTO HttpOFCRounds VALUES (24, 2, 4, 4, 'alice', '', '{"bottom": ["4s", "5s", "7s", "9s", "Qs"], "middle": ["3h", "3d", "3c", "8d", "Jc"], "top": ["Kc", "Kd", "2s"]}', '6h');
INSERT INTO HttpOFCRounds VALUES (25, 2, 5, 5, 'bob', '', '{"bottom": ["Jd"], "top": ["6s"]}', '');
INSERT INTO HttpOFCRounds VALUES (26, 2, 6, 6, 'bob', '', '{"bottom": ["Qh"], "middle": ["2c"]}', '');
INSERT INTO HttpOFCRounds VALUES (27, 2, 7, 7, 'bob', '', '{"bottom": ["Kh"], "top": ["2d"]}', '');

-- hand 48213390: classic OFC, stored without rawJson: only its player and round rows
INSERT INTO HttpOFCHands (id, site, siteHandNo, tableName, startTime, variant, pineapple, deuceToSeven, rounds, validationStatus, rawJson) VALUES (3, 'SealsWithClubs', '48213390', '90114', '2026-05-02T20:02:41.880Z', 'ofc', 0, 0, 27, 'valid', NULL);
INSERT INTO HttpOFCPlayers VALUES (5, 3, 'alice', 2, 253.6, 2.0, 0.0, '8h 8d Ac', '2c 2d 9s 9c Kd', '4h 5h 6h 7h Jh');
INSERT INTO HttpOFCPlayers VALUES (6, 3, 'bob', 5, 176.9, -2.0, 0.0, 'Qc 7d 3s', '10s 10d 4c 5d 6s', '3c 3h 3d Ks Kc');
INSERT INTO HttpOFCRounds VALUES (28, 3, 1, 1, 'alice', '8h 2c 2d 4h 5h', '{}', '');
INSERT INTO HttpOFCRounds VALUES (29, 3, 2, 2, 'alice', '', '{"bottom": ["4h", "5h"], "middle": ["2c", "2d"], "top": ["8h"]}', '');
INSERT INTO HttpOFCRounds VALUES (30, 3, 3, 3, 'bob', '', '{"bottom": ["3c", "3h"], "middle": ["10s", "10d"], "top": ["Qc"]}', '');
INSERT INTO HttpOFCRounds VALUES (31, 3, 4, 4, 'alice', '8d', '{}', '');
INSERT INTO HttpOFCRounds VALUES (32, 3, 5, 5, 'alice', '', '{"top": ["8d"]}', '');
INSERT INTO HttpOFCRounds VALUES (33, 3, 6, 6, 'bob', '', '{"middle": ["4c"]}', '');
INSERT INTO HttpOFCRounds VALUES (34, 3, 7, 7, 'alice', '9s', '{}', '');
INSERT INTO HttpOFCRounds VALUES (35, 3, 8, 8, 'alice', '', '{"middle": ["9s"]}', '');
INSERT INTO HttpOFCRounds VALUES (36, 3, 9, 9, 'bob', '', '{"bottom": ["3d"]}', '');
INSERT INTO HttpOFCRounds VALUES (37, 3, 10, 10, 'alice', '6h', '{}', '');
INSERT INTO HttpOFCRounds VALUES (38, 3, 11, 11, 'alice', '', '{"bottom": ["6h"]}', '');
INSERT INTO HttpOFCRounds VALUES (39, 3, 12, 12, 'bob', '', '{"top": ["7d"]}', '');
INSERT INTO HttpOFCRounds VALUES (40, 3, 13, 13, 'alice', '9c', '{}', '');
INSERT INTO HttpOFCRounds VALUES (41, 3, 14, 14, 'alice', '', '{"middle": ["9c"]}', '');
INSERT INTO HttpOFCRounds VALUES (42, 3, 15, 15, 'bob', '', '{"middle": ["5d"]}', '');
INSERT INTO HttpOFCRounds VALUES (43, 3, 16, 16, 'alice', '7h', '{}', '');
INSERT INTO HttpOFCRounds VALUES (44, 3, 17, 17, 'alice', '', '{"bottom": ["7h"]}', '');
INSERT INTO HttpOFCRounds VALUES (45, 3, 18, 18, 'bob', '', '{"bottom": ["Ks"]}', '');
INSERT INTO HttpOFCRounds VALUES (46, 3, 19, 19, 'alice', 'Ac', '{}', '');
INSERT INTO HttpOFCRounds VALUES (47, 3, 20, 20, 'alice', '', '{"top": ["Ac"]}', '');
INSERT INTO HttpOFCRounds VALUES (48, 3, 21, 21, 'bob', '', '{"middle": ["6s"]}', '');
INSERT INTO HttpOFCRounds VALUES (49, 3, 22, 22, 'alice', 'Kd', '{}', '');
INSERT INTO HttpOFCRounds VALUES (50, 3, 23, 23, 'alice', '', '{"middle": ["Kd"]}', '');
INSERT INTO HttpOFCRounds VALUES (51, 3, 24, 24, 'bob', '', '{"top": ["3s"]}', '');
INSERT INTO HttpOFCRounds VALUES (52, 3, 25, 25, 'alice', 'Jh', '{}', '');
INSERT INTO HttpOFCRounds VALUES (53, 3, 26, 26, 'alice', '', '{"bottom": ["Jh"]}', '');
INSERT INTO HttpOFCRounds VALUES (54, 3, 27, 27, 'bob', '', '{"bottom": ["Kc"]}', '');

-- hand 48213391: Pineapple, without rawJson or rounds; its points are not whole numbers: one Problem
INSERT INTO HttpOFCHands (id, site, siteHandNo, tableName, startTime, variant, pineapple, deuceToSeven, rounds, validationStatus, rawJson) VALUES (5, 'SealsWithClubs', '48213391', '90115', '2026-05-02T20:06:13.004Z', 'ofcp', 1, 0, 0, 'valid', NULL);
INSERT INTO HttpOFCPlayers VALUES (7, 5, 'carol', 0, 97.2, -2.5, 0.0, 'Ac Kc 2d', '3h 3s 8c 9d Jd', '5h 6h 7h 9h Qh');
INSERT INTO HttpOFCPlayers VALUES (8, 5, 'dave', 1, 140.0, 2.5, 0.0, '4c 4d 10s', '5c 5d 7c 7d 2s', 'Js Qs Ks As 8s');
