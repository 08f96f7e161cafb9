-- Materialize reads from its documentation (skills/materialize-docs/<page>/index.md of
-- MaterializeInc/agent-skills), copied verbatim: SELECTs over the catalog (JOINs, CTEs, aggregates),
-- session variables and plain queries. They used to be refused 0A000 by the one-relation evaluator;
-- now the catalog SQL engine answers them: rows for what the catalog holds, and for what it does not
-- (user data, Materialize's introspection relations, WITH MUTUALLY RECURSIVE) a clear error with
-- its SQLSTATE. Same format as materialize-docs.sql.

-- source: docs faqs/index.md
SELECT sum(s.credits_per_hour) AS credit_consumption_rate
  FROM mz_cluster_replicas r
  JOIN mz_cluster_replica_sizes s ON r.size = s.size;

-- source: docs serve-results/bi-tools/index.md
SELECT pg_cancel_backend(connection_id)
      FROM mz_sessions
      WHERE id = 'your_session_id';

-- source: docs serve-results/sink/index.md
SELECT awsc.id, external_id
    FROM mz_internal.mz_aws_connections awsc
    JOIN mz_connections c ON awsc.id = c.id
    WHERE c.name = 'aws_connection';

-- source: docs sql/create-cluster/index.md
SELECT c.id AS cluster_id,
       c.name AS cluster_name,
       cs.type AS schedule_type,
       cs.refresh_hydration_time_estimate
FROM mz_internal.mz_cluster_schedules cs
JOIN mz_clusters c ON cs.cluster_id = c.id
WHERE c.name = 'my_refresh_cluster';

-- source: docs sql/create-cluster/index.md
SELECT cs.cluster_id,
       -- A cluster with scheduling is "on" when it has compute resources
       -- (i.e. a replica) attached.
       CASE WHEN cr.id IS NOT NULL THEN true
       ELSE false END AS is_on
FROM mz_internal.mz_cluster_schedules cs
JOIN mz_clusters c ON cs.cluster_id = c.id AND cs.type = 'on-refresh'
LEFT JOIN mz_cluster_replicas cr ON c.id = cr.cluster_id;

-- source: docs sql/create-materialized-view/index.md
SELECT mv.id AS materialized_view_id,
       mv.name AS materialized_view_name,
       rs.type AS refresh_strategy,
       rs.interval AS refresh_interval,
       rs.aligned_to AS refresh_interval_phase,
       rs.at AS refresh_time,
       r.last_completed_refresh,
       r.next_refresh
FROM mz_internal.mz_materialized_view_refresh_strategies rs
JOIN mz_internal.mz_materialized_view_refreshes r ON r.materialized_view_id = rs.materialized_view_id
JOIN mz_materialized_views mv ON rs.materialized_view_id = mv.id;

-- source: docs sql/create-source/index.md
SELECT group_id_prefix
FROM mz_internal.mz_kafka_sources ks
JOIN mz_sources s ON s.id = ks.id
WHERE s.name = '<src_name>';

-- source: docs transform-data/dataflow-troubleshooting/index.md
SELECT
    s.id,
    s.name,
    s.records,
    pg_size_pretty(s.size) AS size
FROM mz_introspection.mz_dataflow_arrangement_sizes AS s
ORDER BY s.size DESC;

-- source: docs transform-data/dataflow-troubleshooting/index.md
SELECT ce.export_id AS dropped_index_id,
       s.name AS dropped_index_name,
       s.id AS dataflow_id
FROM mz_internal.mz_dataflow_arrangement_sizes s
JOIN mz_internal.mz_compute_exports ce ON ce.dataflow_id = s.id
LEFT JOIN mz_catalog.mz_objects o ON o.id = ce.export_id
WHERE o.id IS NULL;

-- source: docs transform-data/patterns/durable-subscriptions/index.md
SELECT
    d.name AS database_name,
    s.name AS schema_name,
    mv.name,
    hrs.strategy,
    hrs.value
FROM
    mz_catalog.mz_materialized_views AS mv
        LEFT JOIN mz_schemas AS s ON mv.schema_id = s.id
        LEFT JOIN mz_databases AS d ON s.database_id = d.id
        LEFT JOIN mz_internal.mz_history_retention_strategies AS hrs ON mv.id = hrs.id
WHERE mv.name = 'winning_bids';

-- source: docs transform-data/updating-materialized-views/index.md
SELECT
        mv.name,
        h.hydrated
    FROM mz_catalog.mz_materialized_views AS mv
    JOIN mz_internal.mz_hydration_statuses AS h ON (mv.id = h.object_id)
    WHERE mv.name = 'mv_winning_bids_v2';

-- source: docs security/cloud/access-control/index.md
SET CLUSTER = source_cluster;

-- source: docs security/cloud/access-control/index.md
SET DATABASE = mydb;

-- source: docs security/cloud/access-control/index.md
SET SCHEMA  = sales;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO compute_cluster;

-- source: docs security/cloud/access-control/index.md
SET DATABASE TO mydb;

-- source: docs security/cloud/access-control/index.md
SET SCHEMA TO sales;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO serving_cluster;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO serving_cluster;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO compute_cluster;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO compute_cluster;

-- source: docs security/cloud/access-control/index.md
SET CLUSTER TO compute_cluster;

-- source: docs security/self-managed/access-control/index.md
SET CLUSTER TO compute_cluster;

-- source: docs sql/index.md
SET transaction_isolation = 'serializable';

-- source: docs sql/index.md
SET search_path = public, qck;

-- source: docs sql/index.md
SET schema = qck;

-- source: docs sql/index.md
SET CLUSTER = mz_catalog_server;

-- source: docs sql/create-source/index.md
WITH
    click_rollup AS
    (
        SELECT impression_id AS id, count(*) AS clicks
        FROM clicks
        WHERE click_time - INTERVAL '30' DAY <= mz_now()
        GROUP BY impression_id
    ),
    impression_rollup AS
    (
        SELECT id, campaign_id, count(*) AS impressions
        FROM impressions
        WHERE impression_time - INTERVAL '30' DAY <= mz_now()
        GROUP BY id, campaign_id
    )
SELECT campaign_id, sum(impressions) AS impressions, sum(clicks) AS clicks
FROM impression_rollup LEFT JOIN click_rollup USING(id)
GROUP BY campaign_id;

-- source: docs sql/index.md
WITH
  regional_sales (region, total_sales) AS (
    SELECT region, sum(amount)
    FROM orders
    GROUP BY region
  ),
  top_regions AS (
    SELECT region
    FROM regional_sales
    ORDER BY total_sales DESC
    LIMIT 5
  )
SELECT region,
       product,
       SUM(quantity) AS product_units,
       SUM(amount) AS product_sales
FROM orders
WHERE region IN (SELECT region FROM top_regions)
GROUP BY region, product;

-- source: docs sql/select/index.md
WITH MUTUALLY RECURSIVE (ERROR AT RECURSION LIMIT 100)
  connected(src_id char(1), dst_id char(1)) AS (
    SELECT DISTINCT src_id, tgt_id FROM transfers
    UNION ALL
    SELECT src_id, dst_id FROM connected
    UNION ALL
    SELECT c1.src_id, c2.dst_id FROM connected c1 JOIN connected c2 ON c1.dst_id = c2.src_id
  )
SELECT src_id, dst_id FROM connected ORDER BY src_id, dst_id;

-- source: docs transform-data/dataflow-troubleshooting/index.md
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
ORDER BY duration DESC;

-- source: docs transform-data/idiomatic-materialize-sql/any/index.md
WITH individual_sales_items AS
(SELECT unnest(items) as item, week_of FROM sales_items)
SELECT s.week_of, o.order_id, o.item, o.quantity
FROM orders o
JOIN individual_sales_items s ON o.item = s.item
WHERE date_trunc('week', o.order_date) = s.week_of
ORDER BY s.week_of, o.order_id, o.item, o.quantity
;

-- source: docs transform-data/idiomatic-materialize-sql/any/index.md
WITH individual_sales_items AS
(SELECT DISTINCT unnest(items) as item, week_of FROM sales_items)
SELECT s.week_of, o.order_id, o.item, o.quantity
FROM orders o
JOIN individual_sales_items s ON o.item = s.item
WHERE date_trunc('week', o.order_date) = s.week_of
ORDER BY s.week_of, o.order_id, o.item, o.quantity
;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/idiomatic-sql-chart/index.md
WITH individual_sales_items AS
(SELECT unnest(items) as item, week_of FROM sales_items)
SELECT s.week_of, o.order_id, o.item, o.quantity
FROM orders o
JOIN individual_sales_items s ON o.item = s.item
WHERE date_trunc('week', o.order_date) = s.week_of;

-- source: docs security/self-managed/access-control/index.md
SHOW enable_rbac_checks;

-- source: docs self-managed-deployments/configuration-system-parameters/index.md
SHOW ALL;

-- source: docs sql/alter-role/index.md
SHOW cluster;

-- source: docs sql/alter-role/index.md
SHOW cluster;

-- source: docs sql/index.md
SHOW search_path;

-- source: docs sql/index.md
SHOW transaction_isolation;

-- source: docs sql/index.md
TABLE t;

-- source: docs sql/index.md
TABLE t ORDER BY a DESC LIMIT 1;

-- source: docs sql/index.md
VALUES (1, 2, 3), (4, 5, 6);

-- source: docs sql/index.md
VALUES (1), (2), (3) ORDER BY column1 DESC LIMIT 2;
