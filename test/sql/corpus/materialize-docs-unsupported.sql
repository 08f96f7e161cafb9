-- Materialize statements of kinds this control plane deliberately does not serve (DML, SUBSCRIBE,
-- network policies, EXPLAIN, COPY, ...; reads are in materialize-docs-reads.sql), copied verbatim from Materialize's documentation
-- (skills/materialize-docs/<page>/index.md of MaterializeInc/agent-skills). Every one must be
-- answered 0A000 (feature not supported) with a byte position. Same format as
-- materialize-docs.sql: `-- source:` line, then the statement ending with `;` at the end of a line.

-- source: docs sql/index.md
SUBSCRIBE mview ENVELOPE UPSERT (KEY (key));

-- source: docs sql/index.md
SUBSCRIBE mview ENVELOPE DEBEZIUM (KEY (key));

-- source: docs sql/index.md
SUBSCRIBE mview WITHIN TIMESTAMP ORDER BY c1, c2 DESC NULLS LAST, mz_diff;

-- source: docs sql/select/index.md
SUBSCRIBE(SELECT * FROM connected) WITH (SNAPSHOT = FALSE);

-- source: docs sql/select/index.md
SUBSCRIBE(SELECT * FROM strongly_connected_components) WITH (SNAPSHOT = FALSE);

-- source: docs transform-data/patterns/index.md
SUBSCRIBE TO birds_filtered;

-- source: docs security/cloud/access-control/index.md
INSERT INTO items VALUES
  ('brownie',2.25,'USD'),
  ('cheesecake',40,'USD'),
  ('chiffon cake',30,'USD');

-- source: docs security/cloud/access-control/index.md
INSERT INTO orders VALUES
  (1,current_timestamp - (1 * interval '3 day') - (35 * interval '1 minute'),'brownies',12, 'Complete'),
  (1,current_timestamp - (1 * interval '3 day') - (35 * interval '1 minute'),'cupcake',12, 'Complete'),
  (2,current_timestamp - (1 * interval '3 day') - (15 * interval '1 minute'),'cheesecake',1, 'Complete'),
  (3,current_timestamp - (1 * interval '3 day'),'chiffon cake',1, 'Complete'),
  (3,current_timestamp - (1 * interval '3 day'),'egg tart',6, 'Complete'),
  (3,current_timestamp - (1 * interval '3 day'),'fruit tart',6, 'Complete'),
  (4,current_timestamp - (1 * interval '2 day')- (30 * interval '1 minute'),'cupcake',6, 'Shipped'),
  (4,current_timestamp - (1 * interval '2 day')- (30 * interval '1 minute'),'cupcake',6, 'Shipped'),
  (5,current_timestamp - (1 * interval '2 day'),'chocolate cake',1, 'Processing'),
  (6,current_timestamp,'brownie',10, 'Pending'),
  (6,current_timestamp,'chocolate cake',1, 'Pending');

-- source: docs security/cloud/access-control/index.md
INSERT INTO sales_items VALUES
  (date_trunc('week', current_timestamp),ARRAY['brownie','chocolate chip cookie','chocolate cake']),
  (date_trunc('week', current_timestamp + (1* interval '7 day')), ARRAY['chocolate chip cookie','donut','cupcake']);

-- source: docs sql/alter-sink/index.md
INSERT INTO switch VALUES (false);

-- source: docs sql/create-table/index.md
INSERT INTO mytable VALUES
(1, 'hello'),
(2, 'goodbye')
;

-- source: docs sql/delete/index.md
INSERT INTO delete_me
    VALUES
    (1, 'hello'),
    (2, 'goodbye'),
    (3, 'ok');

-- source: docs sql/delete/index.md
INSERT INTO delete_using VALUES ('goodbye'), ('ciao');

-- source: docs sql/drop-table/index.md
INSERT INTO t VALUES (1, 'yes'), (2, 'no'), (3, 'maybe');

-- source: docs sql/functions/csv_extract/index.md
INSERT INTO t
  VALUES (1, 'some,data'), (2, 'more,data'), (3, 'also,data');

-- source: docs sql/functions/index.md
INSERT INTO events VALUES (
    'hello',
    now()
);

-- source: docs sql/functions/index.md
INSERT INTO events VALUES (
    'hello',
    now()
);

-- source: docs sql/functions/index.md
INSERT INTO events VALUES (
    'welcome',
    now()
);

-- source: docs sql/functions/index.md
INSERT INTO events VALUES (
    'goodbye',
    now()
);

-- source: docs sql/functions/index.md
INSERT INTO quizzes VALUES (LIST[5, 7, 8]), (LIST[3, 3]);

-- source: docs sql/index.md
INSERT INTO t VALUES (1, 'a'), (NULL, 'b');

-- source: docs sql/index.md
INSERT INTO t (b, a) VALUES ('a', 1), ('b', NULL);

-- source: docs sql/index.md
INSERT INTO s VALUES ('c');

-- source: docs sql/index.md
INSERT INTO t (b) SELECT * FROM s;

-- source: docs sql/index.md
INSERT INTO example_table VALUES (1, 'hello'), (2, 'goodbye');

-- source: docs sql/index.md
INSERT INTO my_table VALUES (1, 2), (3, 4);

-- source: docs sql/select/index.md
INSERT INTO areas VALUES
  (1, 2    , 'Brooklyn'),
  (2, 3    , 'New York'),
  (3, 7    , 'United States of America'),
  (4, 5    , 'Kreuzberg'),
  (5, 6    , 'Berlin'),
  (6, 7    , 'Germany'),
  (7, null , 'Earth');

-- source: docs sql/select/index.md
INSERT INTO users VALUES
  ('A', 1, 'Alice'),
  ('B', 4, 'Bob'),
  ('C', 2, 'Carol'),
  ('D', 5, 'Dan');

-- source: docs sql/select/index.md
INSERT INTO transfers VALUES
  ('B', 'C', 20.0 , now()),
  ('A', 'D', 15.0 , now() + '05 seconds'),
  ('C', 'D', 25.0 , now() + '10 seconds'),
  ('A', 'B', 10.0 , now() + '15 seconds'),
  ('C', 'A', 35.0 , now() + '20 seconds');

-- source: docs sql/types/index.md
INSERT INTO unscaled VALUES
  (987654321098765432109876543210987654321),
  (9876543210987654321.09876543210987654321),
  (.987654321098765432109876543210987654321);

-- source: docs sql/types/index.md
INSERT INTO scaled VALUES
  (987654321098765432109876543210987654321);

-- source: docs sql/types/index.md
INSERT INTO scaled VALUES
  (9876543210987654321.09876543210987654321),
  (.987654321098765432109876543210987654321);

-- source: docs transform-data/idiomatic-materialize-sql/appendix/example-orders/index.md
INSERT INTO orders VALUES
(1,current_timestamp - (1 * interval '3 day') - (35 * interval '1 minute'),'brownies',12, 'Complete'),
(1,current_timestamp - (1 * interval '3 day') - (35 * interval '1 minute'),'cupcake',12, 'Complete'),
(1,current_timestamp - (1 * interval '3 day') - (35 * interval '1 minute'),'chocolate cake',1, 'Complete'),
(2,current_timestamp - (1 * interval '3 day') - (15 * interval '1 minute'),'cheesecake',1, 'Complete'),
(3,current_timestamp - (1 * interval '3 day'),'chiffon cake',1, 'Complete'),
(3,current_timestamp - (1 * interval '3 day'),'egg tart',6, 'Complete'),
(3,current_timestamp - (1 * interval '3 day'),'fruit tart',6, 'Complete'),
(4,current_timestamp - (1 * interval '2 day')- (30 * interval '1 minute'),'cupcake',6, 'Shipped'),
(4,current_timestamp - (1 * interval '2 day')- (30 * interval '1 minute'),'cupcake',6, 'Shipped'),
(5,current_timestamp - (1 * interval '2 day'),'chocolate cake',1, 'Processing'),
(6,current_timestamp,'brownie',10, 'Pending'),
(6,current_timestamp,'chocolate cake',1, 'Pending'),
(7,current_timestamp,'chocolate chip cookie',20, 'Processing'),
(8,current_timestamp,'coffee cake',1, 'Complete'),
(8,current_timestamp,'fruit tart',4, 'Complete'),
(9,current_timestamp + (15 * interval '1 minute'),'chocolate chip cookie',20, 'Pending'),
(9,current_timestamp + (15 * interval '1 minute'),'brownie',20, 'Processing'),
(10,current_timestamp + (30 * interval '1 minute'),'sugar cookie',10, 'Pending'),
(10,current_timestamp + (30 * interval '1 minute'),'donut',36, 'Pending'),
(11,current_timestamp + (30 * interval '1 minute'),'chiffon cake',2, 'Pending'),
(11,current_timestamp + (30 * interval '1 minute'),'egg tart',6, 'Pending'),
(12,current_timestamp + (1 * interval '1 day') + (35 * interval '1 minute'),'cheesecake',1, 'Pending'),
(13,current_timestamp + (1 * interval '1 day')+ (35 * interval '1 minute'),'chocolate chip cookie',20, 'Pending'),
(14,current_timestamp + (1 * interval '1 day')+ (35 * interval '1 minute'),'brownie',20, 'Pending'),
(14,current_timestamp + (1 * interval '1 day')+ (35 * interval '1 minute'),'cheesecake',1, 'Pending'),
(14,current_timestamp + (1 * interval '1 day')+ (35 * interval '1 minute'),'cupcake',6, 'Pending'),
(15,current_timestamp + (1 * interval '1 day')+ (35 * interval '1 minute'),'chocolate cake',1, 'Pending'),
(16,current_timestamp + (1 * interval '2 day'),'chocolate cake',1, 'Pending'),
(17,current_timestamp + (1 * interval '2 day')+ (10 * interval '1 minute'),'coffee cake',1, 'Pending'),
(17,current_timestamp + (1 * interval '2 day')+ (10 * interval '1 minute'),'egg tart',12, 'Pending'),
(18,current_timestamp + (1 * interval '2 day')+ (15 * interval '1 minute'),'chocolate chip cookie',12, 'Pending'),
(18,current_timestamp + (1 * interval '2 day')+ (15 * interval '1 minute'),'brownie',12, 'Pending'),
(18,current_timestamp + (1 * interval '2 day')+ (15 * interval '1 minute'),'sugar cookie',12, 'Pending'),
(18,current_timestamp + (1 * interval '2 day')+ (15 * interval '1 minute'),'donut',12, 'Pending'),
(19,current_timestamp + (1 * interval '2 day')+ (30 * interval '1 minute'),'cupcake',6, 'Pending'),
(20,current_timestamp + (1 * interval '3 day'),'chiffon cake',1, 'Pending'),
(20,current_timestamp + (1 * interval '3 day'),'egg tart',6, 'Pending'),
(20,current_timestamp + (1 * interval '3 day'),'fruit tart',6, 'Pending'),
(21,current_timestamp + (1 * interval '3 day') + (15 * interval '1 minute'),'cheesecake',1, 'Pending'),
(22,current_timestamp + (1 * interval '3 day') + (35 * interval '1 minute'),'brownies',12, 'Pending'),
(22,current_timestamp + (1 * interval '3 day') + (35 * interval '1 minute'),'cupcake',12, 'Pending'),
(22,current_timestamp + (1 * interval '3 day') + (35 * interval '1 minute'),'chocolate cake',1, 'Pending')
;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/example-orders/index.md
INSERT INTO items VALUES
('brownie',2.25,'USD'),
('cheesecake',40,'USD'),
('chiffon cake',30,'USD'),
('chocolate cake',30,'USD'),
('chocolate chip cookie',2.5,'USD'),
('coffee cake',25,'USD'),
('cupcake',3,'USD'),
('donut',1.25,'USD'),
('egg tart',2.5,'USD'),
('fruit tart',4.5,'USD'),
('sugar cookie',2.5,'USD');

-- source: docs transform-data/idiomatic-materialize-sql/appendix/example-orders/index.md
INSERT INTO sales_items VALUES
(date_trunc('week', current_timestamp),ARRAY['brownie','chocolate chip cookie','chocolate cake']),
(date_trunc('week', current_timestamp + (1* interval '7 day')),ARRAY['chocolate chip cookie','donut','cupcake']);

-- source: docs transform-data/patterns/index.md
INSERT INTO events VALUES (now()::timestamp - '5 minutes', 'hello');

-- source: docs transform-data/patterns/index.md
INSERT INTO events VALUES (now(), 'world');

-- source: docs transform-data/patterns/index.md
INSERT INTO venues VALUES ('US', 1, 'Rock World');

-- source: docs transform-data/patterns/index.md
INSERT INTO venues VALUES ('CA', 2, 'Friendship Cove');

-- source: docs transform-data/patterns/index.md
INSERT INTO input
   SELECT n FROM generate_series(1,10) AS n;

-- source: docs transform-data/patterns/index.md
INSERT INTO input SELECT n FROM generate_series(11,10001) AS n;

-- source: docs transform-data/patterns/index.md
INSERT INTO birds (id, name, wingspan_cm, colors) VALUES
    (1, 'Sparrow', 15.5, '["Brown"]'),
    (2, 'Blue Jay', 20.2, '["Blue"]'),
    (3, 'Cardinal', 22.1, '["Red"]'),
    (4, 'Robin', 18.7, '["Red","Brown"]'),
    (5, 'Hummingbird', 8.2, '["Green"]'),
    (6, 'Penguin', 99.5, '["Black", "White"]'),
    (7, 'Eagle', 200.8, '["Brown"]'),
    (8, 'Owl', 105.3, '["Gray"]'),
    (9, 'Flamingo', 150.6, '["Pink"]'),
    (10, 'Pelican', 180.4, '["White"]');

-- source: docs transform-data/patterns/index.md
INSERT INTO bird_rules (id, starts_with, wingspan_operator, wingspan_cm, colors)
    VALUES
    (1, 'P', 'GTE', 50.0, '["Blue"]'),
    (2, 'P', 'LTE', 100.0, '["Black","White"]'),
    (3, 'R', 'GTE', 20.0, '["Red"]');

-- source: docs transform-data/patterns/index.md
INSERT INTO birds VALUES (11, 'Really big robin', 25.0, '["Red"]');

-- source: docs transform-data/patterns/index.md
INSERT INTO events VALUES ('hello', now());

-- source: docs transform-data/patterns/index.md
INSERT INTO tasks VALUES ('send_email', now(), INTERVAL '5 minutes');

-- source: docs transform-data/patterns/index.md
INSERT INTO tasks VALUES ('time_to_eat', now(), INTERVAL '1 hour');

-- source: docs transform-data/patterns/index.md
INSERT INTO tasks VALUES ('security_block', now(), INTERVAL '1 day');

-- source: docs transform-data/patterns/index.md
INSERT INTO tasks VALUES ('send_email', now(), INTERVAL '5 seconds');

-- source: docs transform-data/patterns/index.md
INSERT INTO input VALUES (1, now());

-- source: docs transform-data/patterns/index.md
INSERT INTO input VALUES (1, now());

-- source: docs transform-data/patterns/index.md
INSERT INTO input VALUES (2, now());

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR "blue.berry@example.com";

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR sales_report_app;

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR view_manager;

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR serving_index_manager;

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR data_reader;

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR view_manager where grantor = 'blue.berry@example.com';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR data_reader where grantor = 'blue.berry@example.com';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR sales_report_app where grantor = 'blue.berry@example.com';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR view_manager where name = 'only_lemon';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR view_manager where name = 'shared_lemon';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR "blue.berry@example.com" where name = 'shared_lemon';

-- source: docs security/cloud/access-control/index.md
SHOW PRIVILEGES FOR "lemon@example.com" where name = 'shared_lemon';

-- source: docs sql/index.md
SHOW PRIVILEGES;

-- source: docs sql/index.md
SHOW PRIVILEGES ON SCHEMAS;

-- source: docs sql/index.md
SHOW PRIVILEGES FOR materialize;

-- source: docs security/cloud/access-control/index.md
SHOW DEFAULT PRIVILEGES FOR "blue.berry@example.com";

-- source: docs security/cloud/access-control/index.md
SHOW DEFAULT PRIVILEGES FOR sales_report_app;

-- source: docs security/cloud/access-control/index.md
SHOW DEFAULT PRIVILEGES FOR view_manager;

-- source: docs security/cloud/access-control/index.md
SHOW DEFAULT PRIVILEGES FOR serving_index_manager;

-- source: docs security/cloud/access-control/index.md
SHOW DEFAULT PRIVILEGES FOR data_reader;

-- source: docs sql/index.md
SHOW DEFAULT PRIVILEGES;

-- source: docs sql/index.md
SHOW DEFAULT PRIVILEGES ON SCHEMAS;

-- source: docs sql/index.md
SHOW DEFAULT PRIVILEGES FOR joe;

-- source: docs serve-results/index.md
DECLARE c CURSOR FOR SUBSCRIBE (SELECT * FROM mv_counter_sum);

-- source: docs sql/begin/index.md
DECLARE c CURSOR FOR SUBSCRIBE (SELECT * FROM flippers);

-- source: docs sql/index.md
DECLARE c CURSOR FOR SUBSCRIBE (SELECT * FROM bids);

-- source: docs serve-results/index.md
FETCH 10 c WITH (timeout='1s');

-- source: docs serve-results/index.md
FETCH 20 c WITH (timeout='1s');

-- source: docs sql/begin/index.md
FETCH 10 c WITH (timeout='1s');

-- source: docs sql/index.md
FETCH ALL c;

-- source: docs sql/index.md
FETCH 100 c WITH (timeout='1s');

-- source: docs sql/index.md
FETCH ALL c WITH (timeout='1s');

-- source: docs sql/index.md
FETCH ALL c WITH (timeout='0s');

-- source: docs serve-results/sink/index.md
COPY some_object TO 's3://<bucket>/<path>'
WITH (
    AWS CONNECTION = aws_connection,
    FORMAT = 'parquet'
  );

-- source: docs serve-results/sink/index.md
COPY some_object TO 's3://<bucket>/<path>'
WITH (
    AWS CONNECTION = aws_connection,
    FORMAT = 'csv'
  );

-- source: docs serve-results/sink/index.md
COPY some_object TO '<S3_BUCKET_URI>'
WITH (
    AWS CONNECTION = bucket_connection,
    FORMAT = 'parquet'
  );

-- source: docs serve-results/sink/index.md
COPY some_object TO '<S3_BUCKET_URI>'
WITH (
    AWS CONNECTION = bucket_connection,
    FORMAT = 'csv'
  );

-- source: docs serve-results/sink/index.md
COPY INTO s3_table_parquet
  FROM @S3_stage
  FILE_FORMAT = (TYPE = 'PARQUET');

-- source: docs serve-results/sink/index.md
COPY INTO s3_table_csv
  FROM @s3_stage
  FILE_FORMAT = (TYPE = 'CSV');

-- source: docs sql/copy-from/index.md
COPY t FROM STDIN WITH (DELIMITER '|');

-- source: docs sql/copy-from/index.md
COPY t FROM STDIN (FORMAT CSV);

-- source: docs sql/copy-from/index.md
COPY t FROM STDIN (DELIMITER '|');

-- source: docs sql/copy-to/index.md
COPY (SUBSCRIBE some_view) TO STDOUT WITH (FORMAT binary);

-- source: docs sql/copy-to/index.md
COPY some_view TO 's3://mz-to-snow/parquet/'
WITH (
    AWS CONNECTION = aws_role_assumption,
    FORMAT = 'parquet'
  );

-- source: docs sql/copy-to/index.md
COPY some_view TO 's3://mz-to-snow/csv/'
WITH (
    AWS CONNECTION = aws_role_assumption,
    FORMAT = 'csv'
  );

-- source: docs sql/functions/index.md
COPY (SUBSCRIBE (SELECT event_ts, content FROM last_30_sec)) TO STDOUT;

-- source: docs sql/index.md
COPY (SUBSCRIBE (SELECT * FROM bids)) TO STDOUT;

-- source: docs transform-data/dataflow-troubleshooting/index.md
COPY(SUBSCRIBE(
    WITH histograms AS (
        SELECT
            mdod.id,
            mdod.name,
            mdod.dataflow_name,
            mcodh.count,
            mcodh.duration_ns / 1000 * '1 MICROSECONDS'::interval AS duration
        FROM mz_introspection.mz_compute_operator_durations_histogram AS mcodh,
            mz_introspection.mz_dataflow_addresses AS mda,
            mz_introspection.mz_dataflow_operator_dataflows AS mdod
        WHERE
            mcodh.id = mdod.id
            AND mdod.id = mda.id
            -- exclude regions and just return operators
            AND mda.address NOT IN (
                SELECT DISTINCT address[:list_length(address) - 1]
                FROM mz_introspection.mz_dataflow_addresses
            )

    )

    SELECT *
    FROM histograms
    WHERE duration > '100 millisecond'::interval
) WITH (SNAPSHOT = false, PROGRESS)) TO STDOUT;

-- source: docs transform-data/patterns/index.md
COPY (SUBSCRIBE (SELECT ts, content FROM last_30_sec)) TO STDOUT;

-- source: docs transform-data/patterns/index.md
COPY( SUBSCRIBE tracking_tasks WITH (SNAPSHOT = false) ) TO STDOUT;

-- source: docs transform-data/patterns/index.md
COPY (SUBSCRIBE (SELECT * FROM output)) TO STDOUT;

-- source: docs sql/alter-sink/index.md
UPDATE switch SET value = true;

-- source: docs sql/index.md
UPDATE example_table
SET a = a + 2
WHERE b = 'hello';

-- source: docs sql/index.md
UPDATE example_table
SET a = 0, b = 'aloha';

-- source: docs transform-data/patterns/index.md
UPDATE birds SET colors = '["Black","White","Blue"]' WHERE name = 'Penguin';

-- source: docs sql/deallocate/index.md
DEALLOCATE a;

-- source: docs sql/delete/index.md
DELETE FROM delete_me WHERE b = 'hello';

-- source: docs sql/delete/index.md
DELETE FROM delete_me
    USING delete_using
    WHERE delete_me.b = delete_using.b;

-- source: docs sql/delete/index.md
DELETE FROM delete_me;

-- source: docs sql/select/index.md
DELETE FROM areas;

-- source: docs sql/select/index.md
DELETE FROM users;

-- source: docs sql/select/index.md
DELETE FROM transfers;

-- source: docs transform-data/patterns/index.md
DELETE FROM bird_rules WHERE id = 3;

-- source: docs sql/execute/index.md
PREPARE a AS SELECT 1 + $1;

-- source: docs sql/execute/index.md
EXECUTE a (2);

-- source: docs sql/index.md
EXECUTE a(2);

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE MEMORY FOR INDEX wins_by_item;

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE CPU FOR INDEX wins_by_item;

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE CPU, MEMORY FOR INDEX wins_by_item;

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE MEMORY WITH SKEW FOR INDEX wins_by_item;

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE HINTS FOR INDEX wins_by_item;

-- source: docs sql/explain-analyze/index.md
EXPLAIN ANALYZE HINTS FOR INDEX wins_by_item AS SQL;

-- source: docs sql/explain-filter-pushdown/index.md
EXPLAIN
SELECT count(*) FROM bids WHERE bid_time + '5 minutes' > mz_now();

-- source: docs sql/explain-filter-pushdown/index.md
EXPLAIN FILTER PUSHDOWN FOR
SELECT count(*) FROM bids WHERE bid_time + '5 minutes' > mz_now();

-- source: docs sql/explain-filter-pushdown/index.md
EXPLAIN FILTER PUSHDOWN FOR
SELECT count(*) FROM bids WHERE bid_time + '1 hour' > mz_now();

-- source: docs sql/explain-plan/index.md
EXPLAIN
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/explain-plan/index.md
EXPLAIN PLAN FOR
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/explain-plan/index.md
EXPLAIN OPTIMIZED PLAN AS TEXT FOR
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/explain-plan/index.md
EXPLAIN WITH(types) FOR
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/explain-plan/index.md
EXPLAIN PHYSICAL PLAN FOR
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/explain-plan/index.md
EXPLAIN
INDEX my_view_idx;

-- source: docs sql/explain-plan/index.md
EXPLAIN PLAN FOR
INDEX my_view_idx;

-- source: docs sql/explain-plan/index.md
EXPLAIN OPTIMIZED PLAN AS TEXT FOR
INDEX my_view_idx;

-- source: docs sql/explain-plan/index.md
EXPLAIN WITH(types) FOR
INDEX my_view_idx;

-- source: docs sql/explain-plan/index.md
EXPLAIN PHYSICAL PLAN FOR
INDEX my_view_idx;

-- source: docs sql/explain-plan/index.md
EXPLAIN
MATERIALIZED VIEW my_mat_view;

-- source: docs sql/explain-plan/index.md
EXPLAIN PLAN FOR
MATERIALIZED VIEW my_mat_view;

-- source: docs sql/explain-plan/index.md
EXPLAIN OPTIMIZED PLAN AS TEXT FOR
MATERIALIZED VIEW my_mat_view;

-- source: docs sql/explain-plan/index.md
EXPLAIN WITH(types)
MATERIALIZED VIEW my_mat_view;

-- source: docs sql/explain-plan/index.md
EXPLAIN PHYSICAL PLAN FOR
MATERIALIZED VIEW my_mat_view;

-- source: docs sql/explain-plan/index.md
EXPLAIN OPTIMIZED PLAN FOR
SUBSCRIBE accounts;

-- source: docs sql/explain-plan/index.md
EXPLAIN OPTIMIZED PLAN FOR
SUBSCRIBE (SELECT id, balance FROM accounts WHERE balance > 1000);

-- source: docs sql/explain-plan/index.md
EXPLAIN PHYSICAL PLAN FOR
SUBSCRIBE accounts;

-- source: docs sql/explain-schema/index.md
EXPLAIN VALUE SCHEMA FOR
  CREATE SINK
  FROM t
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'test_avro_topic')
  KEY (c1)
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE UPSERT;

-- source: docs sql/explain-timestamp/index.md
EXPLAIN TIMESTAMP FOR SELECT * FROM users;

-- source: docs transform-data/dataflow-troubleshooting/index.md
EXPLAIN MATERIALIZED VIEW num_bids;

-- source: docs transform-data/index.md
EXPLAIN SELECT * FROM foo WHERE x = 42 AND y = 50;

-- source: docs transform-data/index.md
EXPLAIN SELECT * FROM course_schedule;

-- source: docs transform-data/index.md
EXPLAIN
  SELECT
      t.name AS teacher_name,
      s.schedule,
      c.name AS course_name
  FROM teachers t
  INNER JOIN sections s ON t.id = s.teacher_id
  INNER JOIN courses c ON c.id = s.course_id
  WHERE t.name = 'Escalante';

-- source: docs transform-data/patterns/index.md
EXPLAIN SELECT * FROM events WHERE mz_now() <= event_ts + INTERVAL '5min';

-- source: docs transform-data/patterns/index.md
EXPLAIN FILTER PUSHDOWN FOR
    SELECT * FROM events WHERE event_ts + '2 minutes' > mz_now();

-- source: docs transform-data/patterns/index.md
EXPLAIN FILTER PUSHDOWN FOR
    SELECT * FROM venues WHERE country_code IN ('US', 'MX');

-- source: docs transform-data/patterns/index.md
EXPLAIN WITH(filter_pushdown)
SELECT count(*)
FROM events
WHERE mz_now() <= event_ts + INTERVAL '30s';

-- source: docs sql/index.md
SHOW NETWORK POLICIES;

-- source: docs sql/index.md
SHOW ROLE MEMBERSHIP;

-- source: docs sql/index.md
SHOW ROLE MEMBERSHIP FOR r2;
