-- Materialize statements of the kinds this control plane serves, copied verbatim from Materialize's
-- documentation and tests: our approximation of the held-out corpus of issue 3 ("≥ 95 % accepted,
-- every rejected one answered 42601/0A000 with a position"). Read by test/sql/corpus.test.ts.
--
-- Format
--   * Each statement is preceded by `-- source: <where it comes from>` and ends with a `;` at the end
--     of a line (outside literals and comments). Comment lines inside a statement are part of it, as
--     typed in the source.
--   * `-- errata: <why>` after the source line marks a statement Materialize itself rejects (a
--     documentation slip: a missing comma, a trailing comma, an old syntax). It must be rejected here
--     too, and is left out of the acceptance rate, which is over what Materialize accepts.
--   * Statements are not fixed: a slip stays a slip, a placeholder value inside a literal
--     ('<BROKER_SSL_KEY>', '${testdrive.kafka-addr}') stays as written.
--
-- The statements of kinds we deliberately do not serve (INSERT, GRANT, SUBSCRIBE, EXPLAIN, ...)
-- are in materialize-docs-unsupported.sql, each expected to be answered 0A000.

-- ============================================================================================
-- Part 1: statements from Materialize's documentation (materialize.com/docs): every statement of
-- the kinds we serve in the `sql`/`mzsql` code blocks of the pages, read from their Markdown
-- export in MaterializeInc/agent-skills (skills/materialize-docs/<page>/index.md), duplicates
-- dropped; the source line names the page. Syntax templates (`<name>`, `[...]`, `...`) and the
-- statements the guides run on the upstream database are left out.
-- ============================================================================================

-- source: docs concepts/index.md
DROP CLUSTER REPLICA cluster1.r1;

-- source: docs sql/drop-cluster-replica/index.md
DROP CLUSTER REPLICA auction_house.bigger;

-- source: docs concepts/index.md
CREATE INDEX idx_orders_view_qty ON orders_view (quantity);

-- source: docs concepts/index.md
CREATE INDEX idx_orders_view_qty on orders_view (quantity);

-- source: docs concepts/index.md
CREATE INDEX idx_orders_view_qty_price on orders_view (quantity, price);

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE INDEX idx_cnt_table1_field1 ON cnt_table1(field1);

-- source: docs integrations/index.md
CREATE INDEX ON payment_status_summary (order_id);

-- source: docs integrations/index.md
CREATE INDEX ON payment_status_summary (user_id, order_id);

-- source: docs manage/dbt/get-started/index.md
-- errata: index names are one identifier in Materialize (its parser: "Expected ON, found dot")
CREATE INDEX database.schema.view_a_idx IN CLUSTER cluster_a ON view_a (col_a);

-- source: docs manage/dbt/get-started/index.md
-- errata: index names are one identifier in Materialize (its parser: "Expected ON, found dot")
CREATE INDEX database.schema.materialized_view_a_idx IN CLUSTER cluster_b ON materialized_view_a (col_a);

-- source: docs security/cloud/access-control/index.md
CREATE INDEX ON orders_daily_totals (order_date);

-- source: docs sql/create-index/index.md
CREATE INDEX active_customers_geo_idx ON active_customers (geo_id);

-- source: docs sql/create-index/index.md
CREATE INDEX active_customers_idx ON active_customers (guid);

-- source: docs sql/create-index/index.md
CREATE INDEX active_customers_exp_idx ON active_customers (upper(guid));

-- source: docs sql/create-index/index.md
CREATE INDEX active_customers_exp_field_idx ON active_customers (upper(guid), geo_id);

-- source: docs sql/explain-analyze/index.md
CREATE INDEX wins_by_item ON winning_bids (item);

-- source: docs sql/explain-plan/index.md
CREATE INDEX my_view_idx ON my_view(id);

-- source: docs sql/index.md
CREATE INDEX purchases_by_region_idx ON purchases_by_region(id);

-- source: docs transform-data/dataflow-troubleshooting/index.md
CREATE INDEX num_bids_idx ON num_bids (item);

-- source: docs transform-data/index.md
CREATE INDEX ON foo (x, y);

-- source: docs transform-data/index.md
CREATE INDEX pk_teachers ON teachers (id);

-- source: docs transform-data/index.md
CREATE INDEX sections_fk_teachers ON sections (teacher_id);

-- source: docs transform-data/index.md
CREATE INDEX pk_courses ON courses (id);

-- source: docs transform-data/index.md
CREATE INDEX sections_fk_courses ON sections (course_id);

-- source: docs transform-data/index.md
CREATE INDEX pk_sections ON sections (id);

-- source: docs transform-data/index.md
CREATE INDEX sections_narrow_teachers_0 ON sections_narrow_teachers (id);

-- source: docs transform-data/index.md
CREATE INDEX sections_narrow_teachers_1 ON sections_narrow_teachers (teacher_id);

-- source: docs transform-data/index.md
CREATE INDEX sections_narrow_courses_0 ON sections_narrow_courses (id);

-- source: docs transform-data/index.md
CREATE INDEX sections_narrow_courses_1 ON sections_narrow_courses (course_id);

-- source: docs transform-data/index.md
CREATE INDEX teachers_name ON teachers (name);

-- source: docs transform-data/updating-materialized-views/index.md
CREATE INDEX idx_winning_bids
     IN CLUSTER serving_cluster
     ON auction_house.mv_winning_bids (auction_id);

-- source: docs concepts/index.md
SELECT object_id, lag
FROM mz_internal.mz_wallclock_global_lag;

-- source: docs ingest-data/index.md
SELECT * FROM mz_catalog.mz_egress_ips;

-- source: docs ingest-data/index.md
SELECT * FROM mz_egress_ips;

-- source: docs ingest-data/mysql/amazon-aurora/index.md
SELECT * FROM mz_ssh_tunnel_connections;

-- source: docs ingest-data/postgres/connection-closed/index.md
SELECT name, connection_type
FROM mz_connections
WHERE type = 'postgres';

-- source: docs ingest-data/postgres/connection-closed/index.md
SELECT *
FROM mz_internal.mz_source_statuses
WHERE id = 'your_source_id';

-- source: docs ingest-data/postgres/index.md
SELECT *
FROM mz_internal.mz_source_statistics
WHERE id = 'your_source_id';

-- source: docs integrations/connection-pooling/index.md
SELECT rolname, rolpassword FROM pg_authid WHERE rolname = 'your_role_name';

-- source: docs manage/dbt/get-started/index.md
SELECT * FROM mz_internal.mz_comments;

-- source: docs manage/terraform/index.md
SELECT * FROM mz_roles WHERE name = 'dev_role';

-- source: docs manage/terraform/index.md
SELECT name, privileges FROM mz_tables WHERE name = 'dev_table';

-- source: docs manage/terraform/index.md
SELECT name, privileges FROM mz_databases WHERE name='qa_db';

-- source: docs sql/alter-role/index.md
SELECT name, inherit FROM mz_roles WHERE name = 'rj';

-- source: docs sql/alter-role/index.md
SELECT name, rolsuper FROM pg_authid WHERE rolname = 'rj';

-- source: docs sql/comment-on/index.md
SELECT * FROM mz_internal.mz_comments;

-- source: docs sql/create-cluster/index.md
SELECT *
FROM mz_audit_events
WHERE object_type = 'cluster-replica'
ORDER BY occurred_at DESC;

-- source: docs sql/create-connection/index.md
SELECT id, external_id, example_trust_policy FROM mz_internal.mz_aws_connections;

-- source: docs sql/create-connection/index.md
SELECT * FROM mz_aws_privatelink_connections;

-- source: docs sql/create-role/index.md
SELECT name FROM mz_roles;

-- source: docs sql/create-role/index.md
SELECT rolsuper FROM pg_authid WHERE rolname = 'super_user';

-- source: docs sql/create-source/index.md
SELECT id, replication_slot FROM mz_internal.mz_postgres_sources;

-- source: docs sql/index.md
SELECT * FROM mz_internal.mz_network_policy_rules;

-- source: docs transform-data/dataflow-troubleshooting/index.md
SELECT * FROM mz_introspection.mz_dataflow_addresses WHERE id=515;

-- source: docs transform-data/index.md
SELECT dataflow_name, region_name, levels, to_cut, hint
FROM mz_introspection.mz_expected_group_size_advice
ORDER BY dataflow_name, region_name;

-- source: docs concepts/index.md
DROP INDEX idx_orders_view_qty;

-- source: docs sql/drop-index/index.md
DROP INDEX q01_geo_idx;

-- source: docs sql/drop-index/index.md
DROP INDEX IF EXISTS q01_geo_idx;

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE CLUSTER ingest_kafka (SIZE = '100cc');

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE SECRET kafka_ssl_key AS '<BROKER_SSL_KEY>';

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE SECRET kafka_ssl_crt AS '<BROKER_SSL_CRT>';

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE SECRET csr_password AS '<CSR_PASSWORD>';

-- source: docs ingest-data/index.md
CREATE SECRET eventbridge_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET hubspot_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET IF NOT EXISTS kafka_secret AS '<kafka-password>';

-- source: docs ingest-data/index.md
CREATE SECRET rudderstack_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET segment_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET snowcat_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET pgpass AS '<POSTGRES_PASSWORD>';

-- source: docs ingest-data/index.md
CREATE SECRET mysqlpass AS '<POSTGRES_PASSWORD>';

-- source: docs ingest-data/index.md
CREATE SECRET kafka_password AS '<your-password>';

-- source: docs ingest-data/index.md
CREATE SECRET csr_password AS '<your-password>';

-- source: docs ingest-data/index.md
CREATE SECRET stripe_webhook_secret AS '<secret_value>';

-- source: docs ingest-data/index.md
CREATE SECRET demo_webhook AS '<secret_value>';

-- source: docs ingest-data/kafka/confluent-cloud/index.md
CREATE SECRET confluent_username AS '<your-api-key>';

-- source: docs ingest-data/kafka/confluent-cloud/index.md
CREATE SECRET confluent_password AS '<your-api-secret>';

-- source: docs ingest-data/kafka/index.md
CREATE SECRET warpstream_username AS '<username>';

-- source: docs ingest-data/kafka/index.md
CREATE SECRET warpstream_password AS '<password>';

-- source: docs ingest-data/mysql/amazon-aurora/index.md
CREATE SECRET mysqlpass AS '<PASSWORD>';

-- source: docs ingest-data/postgres/alloydb/index.md
CREATE SECRET pgpass AS '<PASSWORD>';

-- source: docs ingest-data/redpanda/index.md
CREATE SECRET redpanda_username AS '<your-username>';

-- source: docs ingest-data/redpanda/index.md
CREATE SECRET redpanda_password AS '<your-password>';

-- source: docs ingest-data/sql-server/index.md
CREATE SECRET sqlserver_pass AS '<PASSWORD>';

-- source: docs ingest-data/sql-server/index.md
CREATE SECRET sql_server_pass AS '<PASSWORD>';

-- source: docs serve-results/sink/index.md
CREATE SECRET secret_access_key AS '<SECRET_ACCESS_KEY>';

-- source: docs sql/create-connection/index.md
CREATE SECRET aws_secret_access_key AS '...';

-- source: docs sql/create-connection/index.md
CREATE SECRET secret_access_key AS '...';

-- source: docs sql/create-connection/index.md
CREATE SECRET kafka_ssl_cert AS '-----BEGIN CERTIFICATE----- ...';

-- source: docs sql/create-connection/index.md
CREATE SECRET kafka_ssl_key AS '-----BEGIN PRIVATE KEY----- ...';

-- source: docs sql/create-connection/index.md
CREATE SECRET ca_cert AS '-----BEGIN CERTIFICATE----- ...';

-- source: docs sql/create-connection/index.md
CREATE SECRET kafka_password AS '...';

-- source: docs sql/create-connection/index.md
CREATE SECRET csr_password AS '...';

-- source: docs sql/create-connection/index.md
CREATE SECRET csr_ssl_cert AS '-----BEGIN CERTIFICATE----- ...';

-- source: docs sql/create-connection/index.md
CREATE SECRET csr_ssl_key AS '-----BEGIN PRIVATE KEY----- ...';

-- source: docs sql/create-connection/index.md
CREATE SECRET sqlserver_pass AS '<SQL_SERVER_PASSWORD>';

-- source: docs sql/create-secret/index.md
CREATE SECRET kafka_ca_cert AS decode('c2VjcmV0Cg==', 'base64');

-- source: docs sql/create-sink/index.md
CREATE SECRET kafka_password AS '<BROKER_PASSWORD>';

-- source: docs sql/create-sink/index.md
CREATE SECRET csr_ssl_crt AS '<CSR_SSL_CRT>';

-- source: docs sql/create-sink/index.md
CREATE SECRET csr_ssl_key AS '<CSR_SSL_KEY>';

-- source: docs sql/create-sink/index.md
CREATE SECRET IF NOT EXISTS csr_username AS '<CSR_USERNAME>';

-- source: docs sql/create-sink/index.md
CREATE SECRET IF NOT EXISTS csr_password AS '<CSR_PASSWORD>';

-- source: docs sql/create-source/index.md
CREATE SECRET mysqlpass AS '<MYSQL_PASSWORD>';

-- source: docs sql/create-source/index.md
CREATE SECRET basic_hook_auth AS 'Basic <base64_auth>';

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
      BROKER '<host>',
      SSL KEY = SECRET kafka_ssl_key,
      SSL CERTIFICATE = SECRET kafka_ssl_crt
    );

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
      URL '<csr_url>',
      SSL KEY = SECRET csr_ssl_key,
      SSL CERTIFICATE = SECRET csr_ssl_crt,
      USERNAME = 'foo',
      PASSWORD = SECRET csr_password
    );

-- source: docs ingest-data/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
        SERVICE NAME 'com.amazonaws.vpce.<region_id>.vpce-svc-<endpoint_service_id>',
        AVAILABILITY ZONES ('use1-az1', 'use1-az2', 'use1-az4')
      );

-- source: docs ingest-data/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
        SERVICE NAME 'com.amazonaws.vpce.us-west-1.vpce-svc-<endpoint_service_id>',
        -- For now, the AVAILABILITY ZONES clause **is** required, but will be
        -- made optional in a future release.
        AVAILABILITY ZONES ()
      );

-- source: docs ingest-data/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
       BROKERS (
           -- The port **must exactly match** the port assigned to the broker in
           -- the TCP listerner of the NLB.
           'b-1.hostname-1:9096' USING AWS PRIVATELINK privatelink_svc (PORT  9001, AVAILABILITY ZONE 'use1-az2'),
           'b-2.hostname-2:9096' USING AWS PRIVATELINK privatelink_svc (PORT  9002, AVAILABILITY ZONE 'use1-az1'),
           'b-3.hostname-3:9096' USING AWS PRIVATELINK privatelink_svc (PORT  9003, AVAILABILITY ZONE 'use1-az4')
       ),
       -- Authentication details
       -- Depending on the authentication method the Kafka cluster is using
       SASL MECHANISMS = 'SCRAM-SHA-512',
       SASL USERNAME = 'foo',
       SASL PASSWORD = SECRET kafka_password
   );

-- source: docs ingest-data/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 5432,
    DATABASE postgres,
    USER postgres,
    PASSWORD SECRET pgpass,
    AWS PRIVATELINK privatelink_svc
);

-- source: docs ingest-data/index.md
CREATE CONNECTION IF NOT EXISTS kafka_connection TO KAFKA (
      BROKER '<kafka-bootstrap-server>:9092',
      SECURITY PROTOCOL = 'SASL_PLAINTEXT',
      SASL MECHANISMS = 'SCRAM-SHA-256',
      SASL USERNAME = '<kafka-SASL-username>',
      SASL PASSWORD = SECRET kafka_secret
    );

-- source: docs ingest-data/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
      URL 'http://schema-registry:8081'
   );

-- source: docs ingest-data/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'broker1:9092',
    SSH TUNNEL ssh_connection
);

-- source: docs ingest-data/index.md
-- errata: missing comma between DATABASE and SSH TUNNEL
CREATE CONNECTION pg_connection TO POSTGRES (
  HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
  PORT 5432,
  USER 'postgres',
  PASSWORD SECRET pgpass,
  SSL MODE 'require',
  DATABASE 'postgres'
  SSH TUNNEL ssh_connection
);

-- source: docs ingest-data/index.md
-- errata: missing comma between SASL PASSWORD and SSH TUNNEL
CREATE CONNECTION kafka_connection TO KAFKA (
        BROKER '<broker-url>',
        SECURITY PROTOCOL = 'SASL_PLAINTEXT',
        SASL MECHANISMS = 'SCRAM-SHA-256', -- or `PLAIN` or `SCRAM-SHA-512`
        SASL USERNAME = '<your-username>',
        SASL PASSWORD = SECRET kafka_password
        SSH TUNNEL ssh_connection
    );

-- source: docs ingest-data/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
        URL '<schema-registry-url>',
        USERNAME = '<your-username>',
        PASSWORD = SECRET csr_password
    );

-- source: docs ingest-data/kafka/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
        BROKER '<broker-url>',
        SASL MECHANISMS = 'SCRAM-SHA-512',
        SASL USERNAME = '<your-username>',
        SASL PASSWORD = SECRET kafka_password
    );

-- source: docs ingest-data/kafka/index.md
CREATE CONNECTION warpstream_kafka TO KAFKA (
        BROKER '<CLUSTER_NAME>.fly.dev:9092',
        SASL MECHANISMS = "PLAIN",
        SASL USERNAME = SECRET warpstream_username,
        SASL PASSWORD = SECRET warpstream_password
    );

-- source: docs ingest-data/postgres/alloydb/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
     HOST '<host>',
     PORT 5432,
     USER materialize,
     PASSWORD SECRET pgpass,
     SSL MODE 'require',
     DATABASE '<database>'
   );

-- source: docs ingest-data/postgres/alloydb/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
     HOST '<host>',
     PORT 5432,
     USER 'materialize',
     PASSWORD SECRET pgpass,
     DATABASE '<database>',
     SSH TUNNEL ssh_connection
     );

-- source: docs ingest-data/postgres/amazon-aurora/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
     SERVICE NAME 'com.amazonaws.vpce.us-east-1.vpce-svc-0356210a8a432d9e9',
     AVAILABILITY ZONES ('use1-az1', 'use1-az2', 'use1-az4')
   );

-- source: docs ingest-data/postgres/amazon-aurora/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
     HOST '<host>',
     PORT 5432,
     USER 'materialize',
     PASSWORD SECRET pgpass,
     DATABASE '<database>',
     AWS PRIVATELINK privatelink_svc
     );

-- source: docs ingest-data/postgres/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
      HOST '<host>',
      PORT 5432,
      USER '<user_name>',
      PASSWORD SECRET pgpass,
      SSL MODE 'require',
      DATABASE '<database>'
    );

-- source: docs ingest-data/postgres/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
        SERVICE NAME 'com.amazonaws.vpce.<region_id>.vpce-svc-<endpoint_service_id>',
        AVAILABILITY ZONES ('use1-az1', 'use1-az2', 'use1-az3')
    );

-- source: docs ingest-data/redpanda/index.md
CREATE CONNECTION rp_connection TO KAFKA (
          BROKER '<redpanda-broker-url>',
          SASL MECHANISMS = 'SCRAM-SHA-256', -- The SASL mechanism you chose in Step 2.
          SASL USERNAME = SECRET redpanda_username,
          SASL PASSWORD = SECRET redpanda_password
      );

-- source: docs ingest-data/redpanda/index.md
CREATE CONNECTION rp_privatelink TO AWS PRIVATELINK (
      SERVICE NAME 'com.amazonaws.vpce.us-east-1.vpce-svc-abcdefghijk',
      AVAILABILITY ZONES ('use1-az4','use1-az1','use1-az2')
    );

-- source: docs ingest-data/redpanda/index.md
-- errata: missing comma after AWS PRIVATELINK ... (PORT 30292)
CREATE CONNECTION rp_connection TO KAFKA (
        AWS PRIVATELINK rp_privatelink (PORT 30292)
        SASL MECHANISMS = 'SCRAM-SHA-256', -- The SASL mechanism you chose in Step 2.
        SASL USERNAME = SECRET redpanda_username,
        SASL PASSWORD = SECRET redpanda_password
    );

-- source: docs serve-results/sink/index.md
CREATE CONNECTION aws_connection
      TO AWS (ASSUME ROLE ARN = 'arn:aws:iam::<account-id>:role/<role>');

-- source: docs serve-results/sink/index.md
CREATE CONNECTION bucket_connection TO AWS (
        ACCESS KEY ID = '<ACCESS_KEY_ID>',
        SECRET ACCESS KEY = SECRET secret_access_key,
        ENDPOINT = 'https://storage.googleapis.com',
        REGION = 'us'
    );

-- source: docs sql/create-connection/index.md
CREATE CONNECTION aws_role_assumption TO AWS (
    ASSUME ROLE ARN = 'arn:aws:iam::000000000000:role/WarehouseExport',
    REGION = 'us-east-1'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION aws_credentials TO AWS (
    ACCESS KEY ID = 'ASIAV2KIV5LPTG6HGXG6',
    SECRET ACCESS KEY = SECRET aws_secret_access_key
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION gcs_connection TO AWS (
    ACCESS KEY ID = 'ASIAV2KIV5LPTG6HGXG6',
    SECRET ACCESS KEY = SECRET secret_access_key,
    ENDPOINT = 'https://storage.googleapis.com',
    REGION = 'us'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKERS ('broker1:9092', 'broker2:9092')
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'unique-jellyfish-0000.prd.cloud.redpanda.com:9092',
    SECURITY PROTOCOL = 'PLAINTEXT',
    SSH TUNNEL ssh_connection
);

-- source: docs sql/create-connection/index.md
-- errata: missing comma between SECURITY PROTOCOL and SSL CERTIFICATE
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'rp-f00000bar.cloud.redpanda.com:30365',
    SECURITY PROTOCOL = 'SSL'
    SSL CERTIFICATE = SECRET kafka_ssl_cert,
    SSL KEY = SECRET kafka_ssl_key,
    -- Specifying a certificate authority is only required if your cluster's
    -- certificates are not issued by a CA trusted by the Mozilla root store.
    SSL CERTIFICATE AUTHORITY = SECRET ca_cert
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER = 'rp-f00000bar.cloud.redpanda.com:30365',
    SECURITY PROTOCOL = 'SSL',
    SSH TUNNEL ssh_connection,
    -- Specifying a certificate authority is only required if your cluster's
    -- certificates are not issued by a CA trusted by the Mozilla root store.
    SSL CERTIFICATE AUTHORITY = SECRET ca_cert
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9092',
    SECURITY PROTOCOL = 'SASL_PLAINTEXT',
    SASL MECHANISMS = 'SCRAM-SHA-256', -- or `PLAIN` or `SCRAM-SHA-512`
    SASL USERNAME = 'foo',
    SASL PASSWORD = SECRET kafka_password,
    SSH TUNNEL ssh_connection
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9092',
    SECURITY PROTOCOL = 'SASL_SSL',
    SASL MECHANISMS = 'SCRAM-SHA-256', -- or `PLAIN` or `SCRAM-SHA-512`
    SASL USERNAME = 'foo',
    SASL PASSWORD = SECRET kafka_password,
    -- Specifying a certificate authority is only required if your cluster's
    -- certificates are not issued by a CA trusted by the Mozilla root store.
    SSL CERTIFICATE AUTHORITY = SECRET ca_cert
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION aws_msk TO AWS (
    ASSUME ROLE ARN = 'arn:aws:iam::000000000000:role/MaterializeMSK',
    REGION = 'us-east-1'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_msk TO KAFKA (
    BROKER 'msk.mycorp.com:9092',
    SECURITY PROTOCOL = 'SASL_SSL',
    AWS CONNECTION = aws_msk
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
    SERVICE NAME 'com.amazonaws.vpce.us-east-1.vpce-svc-0e123abc123198abc',
    AVAILABILITY ZONES ('use1-az1', 'use1-az4')
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKERS (
        'broker1:9092' USING AWS PRIVATELINK privatelink_svc,
        'broker2:9092' USING AWS PRIVATELINK privatelink_svc (PORT 9093)
    )
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION privatelink_svc TO AWS PRIVATELINK (
    SERVICE NAME 'com.amazonaws.vpce.us-east-1.vpce-svc-0e123abc123198abc',
    AVAILABILITY ZONES ('use1-az1')
);

-- source: docs sql/create-connection/index.md
-- errata: AWS PRIVATELINK without a connection name, and a missing comma
CREATE CONNECTION kafka_connection TO KAFKA (
    AWS PRIVATELINK (PORT 30292)
    SECURITY PROTOCOL = 'SASL_PLAINTEXT',
    SASL MECHANISMS = 'SCRAM-SHA-256',
    SASL USERNAME = 'foo',
    SASL PASSWORD = SECRET red_panda_password
);

-- source: docs sql/create-connection/index.md
-- errata: missing comma between BROKERS (...) and SSH TUNNEL
CREATE CONNECTION kafka_connection TO KAFKA (
BROKERS (
    'broker1:9092' USING SSH TUNNEL ssh1,
    'broker2:9092' USING SSH TUNNEL ssh2
    )
    SSH TUNNEL ssh_1
);

-- source: docs sql/create-connection/index.md
-- errata: missing comma between PASSWORD and SSL CERTIFICATE AUTHORITY
CREATE CONNECTION csr_basic TO CONFLUENT SCHEMA REGISTRY (
    URL 'https://rp-f00000bar.cloud.redpanda.com:30993',
    USERNAME = 'foo',
    PASSWORD = SECRET csr_password
    -- Specifying a certificate authority is only required if your cluster's
    -- certificates are not issued by a CA trusted by the Mozilla root store.
    SSL CERTIFICATE AUTHORITY = SECRET ca_cert
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION csr_ssl TO CONFLUENT SCHEMA REGISTRY (
    URL 'https://rp-f00000bar.cloud.redpanda.com:30993',
    SSL CERTIFICATE = SECRET csr_ssl_cert,
    SSL KEY = SECRET csr_ssl_key,
    -- Specifying a certificate authority is only required if your cluster's
    -- certificates are not issued by a CA trusted by the Mozilla root store.
    SSL CERTIFICATE AUTHORITY = SECRET ca_cert
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION csr_privatelink TO CONFLUENT SCHEMA REGISTRY (
    URL 'http://my-confluent-schema-registry:8081',
    AWS PRIVATELINK privatelink_svc
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION csr_ssh TO CONFLUENT SCHEMA REGISTRY (
    URL 'http://my-confluent-schema-registry:8081',
    SSH TUNNEL ssh_connection
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION tunnel TO SSH TUNNEL (
    HOST 'bastion-host',
    PORT 22,
    USER 'materialize'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION aws_rds_mysql TO AWS (
    ASSUME ROLE ARN = 'arn:aws:iam::000000000000:role/MaterializeRDS',
    REGION = 'us-west-1'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 5432,
    USER 'postgres',
    PASSWORD SECRET pgpass,
    SSL MODE 'require',
    DATABASE 'postgres'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 5432,
    SSH TUNNEL tunnel,
    DATABASE 'postgres'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION ssh_connection TO SSH TUNNEL (
    HOST 'bastion-host',
    PORT 22,
    USER 'materialize'
);

-- source: docs sql/create-sink/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9093',
    SSL KEY = SECRET kafka_ssl_key,
    SSL CERTIFICATE = SECRET kafka_ssl_crt
);

-- source: docs sql/create-sink/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
    BROKER 'unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9092',
    SASL MECHANISMS = 'SCRAM-SHA-256',
    SASL USERNAME = 'foo',
    SASL PASSWORD = SECRET kafka_password
);

-- source: docs sql/create-sink/index.md
CREATE CONNECTION csr_ssl TO CONFLUENT SCHEMA REGISTRY (
    URL 'unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9093',
    SSL KEY = SECRET csr_ssl_key,
    SSL CERTIFICATE = SECRET csr_ssl_crt,
    USERNAME = 'foo',
    PASSWORD = SECRET csr_password
);

-- source: docs sql/create-sink/index.md
-- errata: an old syntax (FOR ... without parentheses); Materialize now reads TO ... (...)
CREATE CONNECTION csr_basic_http
  FOR CONFLUENT SCHEMA REGISTRY
  URL '<CONFLUENT_REGISTRY_URL>',
  USERNAME = SECRET csr_username,
  PASSWORD = SECRET csr_password;

-- source: docs sql/create-source/index.md
CREATE CONNECTION kafka_connection TO KAFKA (
BROKERS (
    'broker1:9092' USING SSH TUNNEL ssh_connection,
    'broker2:9092' USING SSH TUNNEL ssh_connection
    )
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
    URL 'https://unique-jellyfish-0000.us-east-1.aws.confluent.cloud:9093',
    SSL KEY = SECRET csr_ssl_key,
    SSL CERTIFICATE = SECRET csr_ssl_crt,
    USERNAME = 'foo',
    PASSWORD = SECRET csr_password
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
  URL '<CONFLUENT_REGISTRY_URL>',
  USERNAME = SECRET csr_username,
  PASSWORD = SECRET csr_password
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
    URL 'http://my-confluent-schema-registry:8081',
    AWS PRIVATELINK privatelink_svc
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION csr_connection TO CONFLUENT SCHEMA REGISTRY (
    URL 'http://my-confluent-schema-registry:8081',
    SSH TUNNEL ssh_connection
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 5432,
    USER 'postgres',
    PASSWORD SECRET pgpass,
    AWS PRIVATELINK privatelink_svc,
    DATABASE 'postgres'
);

-- source: docs sql/create-source/index.md
-- errata: trailing comma before the closing parenthesis
CREATE CONNECTION ssh_connection TO SSH TUNNEL (
    HOST 'bastion-host',
    PORT 22,
    USER 'materialize',
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION pg_connection TO POSTGRES (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 5432,
    SSH TUNNEL ssh_connection,
    DATABASE 'postgres'
);

-- source: docs sql/create-source/index.md
-- errata: SSH TUNNEL connections have no DATABASE option (Materialize: "SSH TUNNEL connections do not support DATABASE values")
CREATE CONNECTION ssh_connection TO SSH TUNNEL (
    HOST 'bastion-host',
    PORT 22,
    USER 'materialize',
    DATABASE '<DATABASE_NAME>'
);

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE SOURCE kafka_repl
     IN CLUSTER ingest_kafka
     FROM KAFKA CONNECTION kafka_connection (TOPIC 'my_table')
     -- CockroachDB's default envelope structure for changefeed messages is
     -- compatible with the Debezium format, so you can use ENVELOPE DEBEZIUM
     -- to interpret the data.
     ENVELOPE DEBEZIUM;

-- source: docs ingest-data/index.md
CREATE SOURCE eventbridge_source
FROM WEBHOOK
  BODY FORMAT JSON
  -- Include all headers, but filter out the secret.
  INCLUDE HEADERS ( NOT 'x-mz-api-key' )
  CHECK (
    WITH ( HEADERS, SECRET eventbridge_webhook_secret AS validation_secret)
    -- The constant_time_eq validation function **does not support** fully
    -- qualified secret names. We recommend always aliasing the secret name
    -- for ease of use.
    constant_time_eq(headers->'x-mz-api-key', validation_secret)
  );

-- source: docs ingest-data/index.md
CREATE SOURCE hubspot_source
  FROM WEBHOOK
    BODY FORMAT JSON
    CHECK (
      WITH (
        HEADERS,
        BODY AS body,
        SECRET hubspot_webhook_secret AS validation_secret
      )
      -- The constant_time_eq validation function **does not support** fully
      -- qualified secret names. We recommend always aliasing the secret name
      -- for ease of use.
      constant_time_eq(headers->'authorization', validation_secret)
);

-- source: docs ingest-data/index.md
CREATE SOURCE mdb_items
FROM KAFKA CONNECTION kafka_connection (TOPIC 'mdb-prod-rs0.test.items')
FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
ENVELOPE UPSERT;

-- source: docs ingest-data/index.md
CREATE SOURCE mdb_orders
FROM KAFKA CONNECTION kafka_connection (TOPIC 'mdb-prod-rs0.test.items')
FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
ENVELOPE UPSERT;

-- source: docs ingest-data/index.md
CREATE SOURCE rudderstack_source
  FROM WEBHOOK
    BODY FORMAT JSON
    CHECK (
      WITH (
        HEADERS,
        BODY AS request_body,
        SECRET rudderstack_webhook_secret AS validation_secret
      )
      -- The constant_time_eq validation function **does not support** fully
      -- qualified secret names. We recommend always aliasing the secret name
      -- for ease of use.
      constant_time_eq(headers->'authorization', validation_secret)
);

-- source: docs ingest-data/index.md
-- errata: BYTES before AS in CHECK's WITH (Materialize's parser: "Expected right parenthesis, found AS")
CREATE SOURCE segment_source IN CLUSTER webhooks_cluster FROM WEBHOOK
  BODY FORMAT JSON
  INCLUDE HEADER 'event-type' AS event_type
  INCLUDE HEADERS
  CHECK (
    WITH ( BODY BYTES, HEADERS, SECRET segment_webhook_secret BYTES AS validation_secret)
    -- The constant_time_eq validation function **does not support** fully
    -- qualified secret names. We recommend always aliasing the secret name
    -- for ease of use.
    constant_time_eq(decode(headers->'x-signature', 'hex'), hmac(body, validation_secret, 'sha1'))
  );

-- source: docs ingest-data/index.md
CREATE SOURCE snowcat_source IN CLUSTER webhooks_cluster
  FROM WEBHOOK
    BODY FORMAT JSON
    CHECK (
      WITH (
        HEADERS,
        BODY AS body,
        SECRET snowcat_webhook_secret AS validation_secret
      )
      -- The constant_time_eq validation function **does not support** fully
      -- qualified secret names. We recommend always aliasing the secret name
      -- for ease of use.
      constant_time_eq(headers->'authorization', validation_secret)
);

-- source: docs ingest-data/index.md
CREATE SOURCE mz_source
  FROM POSTGRES CONNECTION pg_connection (PUBLICATION 'mz_source')
  FOR ALL TABLES;

-- source: docs ingest-data/index.md
CREATE SOURCE stripe_source IN CLUSTER webhooks_cluster
FROM WEBHOOK
    BODY FORMAT JSON;

-- source: docs ingest-data/index.md
CREATE SOURCE webhook_demo FROM WEBHOOK
  BODY FORMAT JSON
  CHECK (
    WITH (
      HEADERS,
      BODY AS request_body,
      SECRET demo_webhook AS validation_secret
    )
    -- The constant_time_eq validation function **does not support** fully
    -- qualified secret names. We recommend always aliasing the secret name
    -- for ease of use.
    constant_time_eq(headers->'x-api-key', validation_secret)
  );

-- source: docs ingest-data/kafka/amazon-msk/index.md
CREATE SOURCE json_source
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
  FORMAT JSON;

-- source: docs ingest-data/kafka/index.md
CREATE SOURCE warpstream_click_stream_source
        FROM KAFKA CONNECTION warpstream_kafka (TOPIC 'materialize_click_streams')
        FORMAT JSON;

-- source: docs ingest-data/mysql/index.md
CREATE SOURCE kafka_repl
    FROM KAFKA CONNECTION kafka_connection (TOPIC 'dbserver1.db1.table1')
    FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
    ENVELOPE DEBEZIUM;

-- source: docs ingest-data/postgres/index.md
CREATE SOURCE IF NOT EXISTS my_source
    FROM POSTGRES CONNECTION my_connection (PUBLICATION 'mz_source');

-- source: docs ingest-data/postgres/index.md
CREATE SOURCE kafka_repl
    FROM KAFKA CONNECTION kafka_connection (TOPIC 'pg_repl.public.table1')
    FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
    ENVELOPE DEBEZIUM;

-- source: docs ingest-data/redpanda/index.md
CREATE SOURCE rp_source
  -- The topic you want to read from.
  FROM KAFKA CONNECTION redpanda_cloud (TOPIC '<topic-name>')
  FORMAT JSON;

-- source: docs sql/create-source/index.md
CREATE SOURCE auction_house
  FROM LOAD GENERATOR AUCTION
  (TICK INTERVAL '1s')
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE marketing
  FROM LOAD GENERATOR MARKETING
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE tpch
  FROM LOAD GENERATOR TPCH (SCALE FACTOR 1)
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_upsert
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'events')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  ENVELOPE UPSERT;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_upsert
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'events')
  KEY FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  VALUE FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  ENVELOPE UPSERT (VALUE DECODING ERRORS = INLINE);

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_repl
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'my_table1')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  ENVELOPE DEBEZIUM;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_metadata
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'data')
  KEY FORMAT TEXT
  VALUE FORMAT TEXT
  INCLUDE KEY AS renamed_id;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_metadata
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'data')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  INCLUDE HEADERS
  ENVELOPE NONE;

-- source: docs sql/create-source/index.md
-- errata: trailing comma at the end of the INCLUDE list
CREATE SOURCE kafka_metadata
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'data')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  INCLUDE HEADER 'c_id' AS client_id, HEADER 'key' AS encryption_key BYTES,
  ENVELOPE NONE;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_metadata
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'data')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  INCLUDE PARTITION, OFFSET, TIMESTAMP AS ts
  ENVELOPE NONE;

-- source: docs sql/create-source/index.md
CREATE SOURCE kafka_offset
  FROM KAFKA CONNECTION kafka_connection (
    TOPIC 'data',
    -- Start reading from the earliest offset in the first partition,
    -- the second partition at 10, and the third partition at 100.
    START OFFSET (0, 10, 100)
  )
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection;

-- source: docs sql/create-source/index.md
CREATE SOURCE avro_source
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection;

-- source: docs sql/create-source/index.md
CREATE SOURCE text_source
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
  FORMAT TEXT
  ENVELOPE UPSERT;

-- source: docs sql/create-source/index.md
CREATE SOURCE csv_source (col_foo, col_bar, col_baz)
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
  FORMAT CSV WITH 3 COLUMNS;

-- source: docs sql/create-source/index.md
CREATE SOURCE proto_source
  FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
  FORMAT PROTOBUF USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection;

-- source: docs sql/create-source/index.md
CREATE SOURCE proto_source
    FROM KAFKA CONNECTION kafka_connection (TOPIC 'test_topic')
    FORMAT PROTOBUF MESSAGE 'Batch' USING SCHEMA '\x0a300a0d62696...';

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM POSTGRES CONNECTION pg_connection (PUBLICATION 'mz_source')
  FOR TABLES (schema1.table_1 AS s1_table_1, schema2_table_1 AS s2_table_1);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM POSTGRES CONNECTION pg_connection (PUBLICATION 'mz_source')
  FOR SCHEMAS (public, project);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM POSTGRES CONNECTION pg_connection (PUBLICATION 'mz_source')
  FOR TABLES (table_1, table_2 AS alias_table_2);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM POSTGRES CONNECTION pg_connection (
    PUBLICATION 'mz_source',
    TEXT COLUMNS (upstream_table_name.column_of_unsupported_type)
  ) FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE my_webhook_source FROM WEBHOOK
  BODY FORMAT JSON
  INCLUDE HEADER 'timestamp' as ts
  INCLUDE HEADER 'x-event-type' as event_type;

-- source: docs sql/create-source/index.md
CREATE SOURCE my_webhook_source FROM WEBHOOK
  BODY FORMAT JSON
  INCLUDE HEADERS ( NOT 'authorization', NOT 'x-api-key' );

-- source: docs sql/create-source/index.md
CREATE SOURCE my_webhook_source FROM WEBHOOK
  BODY FORMAT JSON
  CHECK (
    WITH (
      HEADERS, BODY AS request_body,
      SECRET my_webhook_shared_secret AS validation_secret
    )
    -- The constant_time_eq validation function **does not support** fully
    -- qualified secret names. We recommend always aliasing the secret name
    -- for ease of use.
    constant_time_eq(
        decode(headers->'x-signature', 'base64'),
        hmac(request_body, validation_secret, 'sha256')
    )
  );

-- source: docs sql/create-source/index.md
CREATE SOURCE my_webhook_temporary_debug FROM WEBHOOK
  -- Specify the BODY FORMAT as TEXT or BYTES,
  -- which is how it's provided to CHECK.
  BODY FORMAT TEXT
  INCLUDE HEADERS;

-- source: docs sql/create-source/index.md
CREATE SOURCE webhook_source_json_array FROM WEBHOOK
  BODY FORMAT JSON ARRAY
  INCLUDE HEADERS;

-- source: docs sql/create-source/index.md
CREATE SOURCE webhook_source_ndjson FROM WEBHOOK
BODY FORMAT JSON;

-- source: docs sql/create-source/index.md
CREATE SOURCE webhook_with_basic_auth
FROM WEBHOOK
    BODY FORMAT JSON
    CHECK (
      WITH (
        HEADERS,
        BODY AS request_body,
        SECRET basic_hook_auth AS validation_secret
      )
      -- The constant_time_eq validation function **does not support** fully
      -- qualified secret names. We recommend always aliasing the secret name
      -- for ease of use.
      constant_time_eq(headers->'authorization', validation_secret)
    );

-- source: docs sql/create-table/index.md
CREATE SOURCE pg_source
      FROM POSTGRES CONNECTION pg_connection (
        PUBLICATION 'mz_source'       -- substitute
      );

-- source: docs sql/explain-analyze/index.md
CREATE SOURCE auction_house
FROM LOAD GENERATOR AUCTION
(TICK INTERVAL '1s', AS OF 100000)
FOR ALL TABLES;

-- source: docs sql/index.md
CREATE SOURCE auction FROM LOAD GENERATOR AUCTION FOR ALL TABLES;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE SOURCE auction_house.auction_source
     IN CLUSTER ingest_cluster
     FROM LOAD GENERATOR AUCTION (TICK INTERVAL '1s')
     FOR ALL TABLES;

-- source: docs ingest-data/cdc-cockroachdb/index.md
CREATE VIEW cnt_table1 AS
    SELECT field1,
           COUNT(*) AS cnt
    FROM kafka_repl
    GROUP BY field1;

-- source: docs ingest-data/index.md
CREATE VIEW parse_hubspot AS SELECT
    body->>'city' AS city,
    body->>'firstname' AS firstname,
    body->>'ip_city' AS ip_city,
    -- Add all of the fields you want to ingest
FROM hubspot_source;

-- source: docs ingest-data/index.md
CREATE VIEW json_parsed AS
  SELECT
    (body -> '_metadata' ->> 'nodeVersion')::text AS nodeVersion,
    (body ->> 'channel')::text AS channel,
    (body ->> 'event')::text AS event,
    (body ->> 'userId')::text AS userId
  FROM rudderstack_source;

-- source: docs ingest-data/index.md
CREATE VIEW parse_segment AS SELECT
    body->>'anonymousId' AS anonymousId,
    body->>'channel' AS channel,
    body->'context'->>'ip' AS context_ip,
    body->'context'->>'userAgent' AS context_user_agent,
    (body->'integrations'->>'All')::bool AS integrations_all,
    (body->'integrations'->>'Mixpanel')::bool AS integrations_mixpanel,
    (body->'integrations'->>'Salesforce')::bool AS integrations_salesforce,
    body->>'messageId' AS messageId,
    body->>'name' AS name,
    body->'properties'->>'title' AS properties_title,
    body->'properties'->>'url' AS properties_url,
    try_parse_monotonic_iso8601_timestamp(body->>'receivedAt') AS received_at,
    try_parse_monotonic_iso8601_timestamp(body->>'sentAt') AS sent_at,
    try_parse_monotonic_iso8601_timestamp(body->>'timestamp') AS timestamp,
    body->>'type' AS type,
    body->>'userId' AS user_id,
    body->>'version' AS version
FROM segment_source;

-- source: docs ingest-data/index.md
CREATE VIEW parse_segment AS SELECT
    body->>'anonymousId' AS anonymous_id,
    body->'context'->'library'->>'name' AS context_library_name,
    (body->'context'->'library'->>'version') AS context_library_version,
    body->'context'->'page'->>'path' AS context_page_path,
    body->'context'->'page'->>'referrer' AS context_page_referrer,
    body->'context'->'page'->>'search' AS context_page_search,
    body->'context'->'page'->>'title' AS context_page_title,
    body->'context'->'page'->>'url' AS context_page_url,
    body->'context'->>'userAgent' AS context_userAgent,
    body->'context'->>'ip' AS context_ip,
    body->>'event' AS event,
    body->>'messageId' AS message_id,
    body->'properties'->>'title' AS properties_title,
    try_parse_monotonic_iso8601_timestamp(body->>'receivedAt') AS received_at,
    try_parse_monotonic_iso8601_timestamp(body->>'sentAt') AS sent_at,
    try_parse_monotonic_iso8601_timestamp(body->>'timestamp') AS timestamp,
    body->>'type' AS type,
    body->>'userId' AS user_id,
    try_parse_monotonic_iso8601_timestamp(body->>'originalTimestamp') AS original_timestamp
FROM segment_source;

-- source: docs ingest-data/index.md
CREATE VIEW parse_segment AS SELECT
    body->>'anonymousId' AS anonymous_id,
    body->>'channel' AS channel,
    body->'context'->>'ip' AS context_ip,
    body->'context'->>'userAgent' AS context_user_agent,
    (body->'integrations'->>'All')::bool AS integrations_all,
    (body->'integrations'->>'Mixpanel')::bool AS integrations_mixpanel,
    (body->'integrations'->>'Salesforce')::bool AS integrations_salesforce,
    body->>'messageId' AS messageId,
    try_parse_monotonic_iso8601_timestamp(body->>'receivedAt') AS received_at,
    try_parse_monotonic_iso8601_timestamp(body->>'sentAt') AS sent_at,
    try_parse_monotonic_iso8601_timestamp(body->>'timestamp') AS timestamp,
    body->'traits'->>'name' AS traits_name,
    body->'traits'->>'email' AS traits_email,
    body->'traits'->>'plan' AS traits_plan,
    (body->'traits'->>'logins')::numeric AS traits_logins,
    body->'traits'->'address'->>'street' AS traits_address_street,
    body->'traits'->'address'->>'city' AS traits_address_city,
    body->'traits'->'address'->>'state' AS traits_address_state,
    (body->'traits'->'address'->>'postalCode') AS traits_address_postalCode,
    body->'traits'->'address'->>'country' AS traits_address_country,
    body->>'type' AS type,
    body->>'userId' AS user_id,
    body->>'version' AS version
FROM segment_source;

-- source: docs ingest-data/index.md
CREATE VIEW events AS
SELECT
    body ->> 'app_id' AS app_id,
    body ->> 'platform' AS platform,
    try_parse_monotonic_iso8601_timestamp(body ->> 'etl_tstamp') AS etl_tstamp,
    try_parse_monotonic_iso8601_timestamp(body ->> 'collector_tstamp') AS collector_tstamp,
    try_parse_monotonic_iso8601_timestamp(body ->> 'dvce_created_tstamp') AS dvce_created_tstamp,
    body ->> 'event' AS event,
    body ->> 'event_id' AS event_id,
    body ->> 'txn_id' AS txn_id,
    body ->> 'name_tracker' AS name_tracker,
    body ->> 'v_tracker' AS v_tracker,
    body ->> 'v_collector' AS v_collector,
    body ->> 'v_etl' AS v_etl,
    body ->> 'user_id' AS user_id,
    body ->> 'user_ipaddress' AS user_ipaddress,
    body ->> 'user_fingerprint' AS user_fingerprint,
    body ->> 'domain_userid' AS domain_userid,
    body ->> 'domain_sessionidx' AS domain_sessionidx,
    body ->> 'network_userid' AS network_userid,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'country' -> 'names' ->> 'en')::text AS geo_country,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'subdivisions' -> 0 -> 'names' ->> 'en')::text AS geo_region,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'city' -> 'names' ->> 'en')::text AS geo_city,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'postal' ->> 'code')::text AS geo_zipcode,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'location' ->> 'latitude')::numeric AS geo_latitude,
    (body -> 'contexts_com_dbip_location_1' -> 0 -> 'location' ->> 'longitude')::numeric AS geo_longitude,
    (body -> 'contexts_com_dbip_isp_1' -> 0 -> 'traits' ->> 'organization')::text AS ip_organization,
    (body -> 'contexts_com_dbip_isp_1' -> 0 -> 'traits' ->> 'isp')::text AS ip_isp,
    (body -> 'contexts_com_dbip_isp_1' -> 0 -> 'traits' ->> 'asn')::text AS ip_asn,
    (body -> 'contexts_com_dbip_isp_1' -> 0 -> 'traits' ->> 'connection_type')::text AS ip_connection_type,
    (body -> 'contexts_com_dbip_isp_1' -> 0 -> 'traits' ->> 'user_type')::text AS ip_user_type,
    body ->> 'page_url' AS page_url,
    body ->> 'page_title' AS page_title,
    body ->> 'page_referrer' AS page_referrer,
    body ->> 'page_urlscheme' AS page_urlscheme,
    body ->> 'page_urlhost' AS page_urlhost,
    body ->> 'page_urlport' AS page_urlport,
    body ->> 'page_urlpath' AS page_urlpath,
    body ->> 'page_urlquery' AS page_urlquery,
    body ->> 'page_urlfragment' AS page_urlfragment,
    body ->> 'refr_urlscheme' AS refr_urlscheme,
    body ->> 'refr_urlhost' AS refr_urlhost,
    body ->> 'refr_urlport' AS refr_urlport,
    body ->> 'refr_urlpath' AS refr_urlpath,
    body ->> 'refr_urlquery' AS refr_urlquery,
    body ->> 'refr_urlfragment' AS refr_urlfragment,
    body ->> 'refr_medium' AS refr_medium,
    body ->> 'refr_source' AS refr_source,
    body ->> 'refr_term' AS refr_term,
    body ->> 'mkt_medium' AS mkt_medium,
    body ->> 'mkt_source' AS mkt_source,
    body ->> 'mkt_term' AS mkt_term,
    body ->> 'mkt_content' AS mkt_content,
    body ->> 'mkt_campaign' AS mkt_campaign,
    body ->> 'se_category' AS se_category,
    body ->> 'se_action' AS se_action,
    body ->> 'se_label' AS se_label,
    body ->> 'se_property' AS se_property,
    (body ->> 'se_value')::numeric AS se_value,
    body ->> 'unstruct_event' AS unstruct_event,
    body ->> 'tr_orderid' AS tr_orderid,
    body ->> 'tr_affiliation' AS tr_affiliation,
    (body ->> 'tr_total')::numeric AS tr_total,
    (body ->> 'tr_tax')::numeric AS tr_tax,
    (body ->> 'tr_shipping')::numeric AS tr_shipping,
    body ->> 'tr_city' AS tr_city,
    body ->> 'tr_state' AS tr_state,
    body ->> 'tr_country' AS tr_country,
    body ->> 'ti_orderid' AS ti_orderid,
    body ->> 'ti_sku' AS ti_sku,
    body ->> 'ti_name' AS ti_name,
    body ->> 'ti_category' AS ti_category,
    (body ->> 'ti_price')::numeric AS ti_price,
    body ->> 'ti_quantity' AS ti_quantity,
    body ->> 'pp_xoffset_min' AS pp_xoffset_min,
    body ->> 'pp_xoffset_max' AS pp_xoffset_max,
    body ->> 'pp_yoffset_min' AS pp_yoffset_min,
    body ->> 'pp_yoffset_max' AS pp_yoffset_max,
    body ->> 'useragent' AS useragent,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'agentNameVersion')::text AS br_name,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'agentName')::text AS br_family,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'agentVersion')::text AS br_version,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'layoutEngineClass')::text AS br_type,
    body ->> 'br_lang' AS br_lang,
    body ->> 'br_features_pdf' AS br_features_pdf,
    body ->> 'br_features_flash' AS br_features_flash,
    body ->> 'br_features_java' AS br_features_java,
    body ->> 'br_features_director' AS br_features_director,
    body ->> 'br_features_quicktime' AS br_features_quicktime,
    body ->> 'br_features_realplayer' AS br_features_realplayer,
    body ->> 'br_features_windowsmedia' AS br_features_windowsmedia,
    body ->> 'br_features_gears' AS br_features_gears,
    body ->> 'br_features_silverlight' AS br_features_silverlight,
    body ->> 'br_cookies' AS br_cookies,
    body ->> 'br_colordepth' AS br_colordepth,
    body ->> 'br_viewwidth' AS br_viewwidth,
    body ->> 'br_viewheight' AS br_viewheight,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'operatingSystemName')::text AS os_name,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'operatingSystemClass')::text AS os_family,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'deviceBrand')::text AS os_manufacturer,
    body ->> 'os_timezone' AS os_timezone,
    (body -> 'contexts_nl_basjes_yauaa_context_1' -> 0 ->> 'deviceClass')::text AS dvce_type,
    (body ->> 'dvce_screenwidth')::numeric AS dvce_screenwidth,
    (body ->> 'dvce_screenheight')::numeric AS dvce_screenheight,
    body ->> 'doc_charset' AS doc_charset,
    (body ->> 'doc_width')::numeric AS doc_width,
    (body ->> 'doc_height')::numeric AS doc_height,
    body ->> 'tr_currency' AS tr_currency,
    (body ->> 'tr_total_base')::numeric AS tr_total_base,
    (body ->> 'tr_tax_base')::numeric AS tr_tax_base,
    (body ->> 'tr_shipping_base')::numeric AS tr_shipping_base,
    body ->> 'ti_currency' AS ti_currency,
    (body ->> 'ti_price_base')::numeric AS ti_price_base,
    body ->> 'base_currency' AS base_currency,
    body ->> 'geo_timezone' AS geo_timezone,
    body ->> 'mkt_clickid' AS mkt_clickid,
    body ->> 'mkt_network' AS mkt_network,
    body ->> 'etl_tags' AS etl_tags,
    try_parse_monotonic_iso8601_timestamp(body ->> 'dvce_sent_tstamp') AS dvce_sent_tstamp,
    body ->> 'refr_domain_userid' AS refr_domain_userid,
    try_parse_monotonic_iso8601_timestamp(body ->> 'refr_dvce_tstamp') AS refr_dvce_tstamp,
    body ->> 'domain_sessionid' AS domain_sessionid,
    try_parse_monotonic_iso8601_timestamp(body ->> 'derived_tstamp') AS derived_tstamp,
    body ->> 'event_vendor' AS event_vendor,
    body ->> 'event_name' AS event_name,
    body ->> 'event_format' AS event_format,
    body ->> 'event_version' AS event_version,
    body ->> 'event_fingerprint' AS event_fingerprint
FROM
    snowcat_source;

-- source: docs ingest-data/index.md
CREATE VIEW parse_stripe AS SELECT
    body->>'api_version' AS api_version,
    to_timestamp((body->'created')::int) AS created,
    body->'data' AS data,
    body->'id' AS id,
    (body->'livemode')::boolean AS livemode,
    body->'object' AS object,
    body->>'pending_webhooks' AS pending_webhooks,
    body->'request'->'idempotency_key' AS idempotency_key,
    body->>'type' AS type
FROM stripe_source;

-- source: docs ingest-data/index.md
CREATE VIEW webhook_demo_parsed AS SELECT
    (body->'location'->>'latitude')::numeric AS location_latitude,
    (body->'location'->>'longitude')::numeric AS location_longitude,
    (body->>'sensor_id')::numeric AS sensor_id,
    (body->>'temperature')::numeric AS temperature,
    try_parse_monotonic_iso8601_timestamp(body->>'timestamp') AS timestamp
FROM webhook_demo;

-- source: docs security/cloud/access-control/index.md
CREATE VIEW orders_view AS
SELECT o.*,i.price,o.quantity * i.price as subtotal
FROM orders as o
JOIN items as i
ON o.item = i.item;

-- source: docs serve-results/bi-tools/index.md
CREATE VIEW my_view_bi AS SELECT * FROM my_view;

-- source: docs sql/create-source/index.md
CREATE VIEW my_typed_source AS
  SELECT
    (data->>'field1')::boolean AS field_1,
    (data->>'field2')::int AS field_2,
    (data->>'field3')::float AS field_3
  FROM my_jsonb_source;

-- source: docs sql/create-source/index.md
-- errata: AS missing before the query
CREATE VIEW kafka_upsert_parsed
SELECT *
FROM kafka_upsert
WHERE error IS NULL;

-- source: docs sql/create-source/index.md
CREATE VIEW typed_kafka_source AS
  SELECT
    (data->>'field1')::boolean AS field_1,
    (data->>'field2')::int AS field_2,
    (data->>'field3')::float AS field_3
  FROM json_source;

-- source: docs sql/create-view/index.md
CREATE VIEW purchase_sum_by_region
AS
    SELECT sum(purchase.amount) AS region_sum,
           region.id AS region_id
    FROM region
    INNER JOIN user
        ON region.id = user.region_id
    INNER JOIN purchase
        ON purchase.user_id = user.id
    GROUP BY region.id;

-- source: docs sql/explain-analyze/index.md
CREATE VIEW winning_bids AS
  SELECT DISTINCT ON (a.id) b.*, a.item, a.seller
    FROM auctions AS a
    JOIN bids AS b
      ON a.id = b.auction_id
   WHERE b.bid_time < a.end_time
     AND mz_now() >= a.end_time
   ORDER BY a.id, b.amount DESC, b.bid_time, b.buyer;

-- source: docs sql/explain-analyze/index.md
CREATE VIEW winning_bids AS
    SELECT DISTINCT ON (a.id) b.*, a.item, a.seller
      FROM auctions AS a
      JOIN bids AS b
        ON a.id = b.auction_id
     WHERE b.bid_time < a.end_time
       AND mz_now() >= a.end_time
   OPTIONS (DISTINCT ON INPUT GROUP SIZE = 255) -- use hint!
  ORDER BY a.id,
    b.amount DESC,
    b.bid_time,
    b.buyer;

-- source: docs sql/explain-plan/index.md
CREATE VIEW my_view AS
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/functions/array_agg/index.md
CREATE VIEW bar AS SELECT array_agg(foo_view.bar) FROM foo_view;

-- source: docs sql/functions/index.md
CREATE VIEW bar AS SELECT jsonb_agg(foo_view.bar) FROM foo_view;

-- source: docs sql/functions/index.md
CREATE VIEW bar AS SELECT jsonb_object_agg(key_col, val_col) FROM foo_view;

-- source: docs sql/functions/index.md
CREATE VIEW bar AS SELECT list_agg(foo_view.bar) FROM foo_view;

-- source: docs sql/functions/index.md
CREATE VIEW bar AS SELECT map_agg(key_col, val_col) FROM foo_view;

-- source: docs sql/functions/index.md
CREATE VIEW last_30_sec AS
SELECT event_ts, content
FROM events
WHERE mz_now() <= event_ts + INTERVAL '30s';

-- source: docs sql/functions/index.md
CREATE VIEW bar AS SELECT string_agg(foo_view.bar, ',');

-- source: docs sql/identifiers/index.md
CREATE VIEW v2 AS
  SELECT *
  FROM d1.s1.v1
  JOIN d2.s1.v1
  ON d1.s1.v1.a = d2.s1.v1.a;

-- source: docs sql/identifiers/index.md
CREATE VIEW v3 AS
        SELECT *
        FROM v1
        JOIN v2
        ON v1.a = v2.v1;

-- source: docs sql/identifiers/index.md
CREATE VIEW v4 AS
        SELECT *
        FROM v1
        JOIN v1.v2
        ON v1.a = v2.a;

-- source: docs sql/identifiers/index.md
CREATE VIEW v5 AS
    SELECT *
    FROM d1.s1.v2
    JOIN v1
    ON v1.a = v2.b;

-- source: docs sql/index.md
CREATE VIEW purchases_by_region AS
    SELECT region.id, sum(purchase.total)
    FROM mysql_simple_purchase AS purchase
    JOIN mysql_simple_user AS user ON purchase.user_id = user.id
    JOIN mysql_simple_region AS region ON user.region_id = region.id
    GROUP BY region.id;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/example-orders/index.md
CREATE VIEW orders_view AS
SELECT o.*,i.price,o.quantity * i.price as subtotal
FROM orders as o
JOIN items as i
ON o.item = i.item;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/example-orders/index.md
CREATE VIEW orders_daily_totals AS
SELECT date_trunc('day',order_date) AS order_date,
       sum(subtotal) AS daily_total
FROM orders_view
GROUP BY date_trunc('day',order_date);

-- source: docs transform-data/index.md
CREATE VIEW course_schedule AS
  SELECT
      t.name AS teacher_name,
      s.schedule,
      c.name AS course_name
  FROM teachers t
  INNER JOIN sections s ON t.id = s.teacher_id
  INNER JOIN courses c ON c.id = s.course_id;

-- source: docs transform-data/index.md
CREATE VIEW sections_narrow_teachers AS SELECT id, teacher_id FROM sections;

-- source: docs transform-data/index.md
CREATE VIEW sections_narrow_courses AS SELECT id, course_id FROM sections;

-- source: docs transform-data/patterns/index.md
CREATE VIEW histogram AS
   SELECT
     value AS bucket,
     count(*) AS count_of_bucket_values
   FROM input
   GROUP BY value;

-- source: docs transform-data/patterns/index.md
CREATE VIEW distribution AS
   SELECT
     h.bucket,
     h.count_of_bucket_values,
     sum(g.count_of_bucket_values) AS cumulative_count,
     sum(g.count_of_bucket_values) / (SELECT sum(count_of_bucket_values) FROM histogram) AS cumulative_density
   FROM histogram g, histogram h
   WHERE g.bucket <= h.bucket
   GROUP BY h.bucket, h.count_of_bucket_values
   ORDER BY cumulative_density;

-- source: docs transform-data/patterns/index.md
CREATE VIEW hdr_histogram AS
WITH
  input_parts AS (
    SELECT
      CASE WHEN value = 0 THEN NULL
          ELSE trunc(log(2, abs(value)))::int
      END AS exponent,
      CASE WHEN value = 0 THEN NULL
          ELSE value / pow(2.0, trunc(log(2, abs(value)))::int)
      END AS significand
    FROM input
  ),
  buckets AS (
    -- reduce precision by 4 bits to round down the value to the nearest multiple of 1/16
    SELECT
      trunc(significand * pow(2.0, 4)) / pow(2.0, 4)
        * pow(2.0, exponent)
        AS bucket
    FROM input_parts
  )
SELECT
  COALESCE(bucket, 0) AS bucket,
  count(*) AS count_of_bucket_values
FROM buckets
GROUP BY bucket;

-- source: docs transform-data/patterns/index.md
CREATE VIEW hdr_distribution AS
   SELECT
     h.bucket,
     h.count_of_bucket_values,
     sum(g.count_of_bucket_values) AS cumulative_count,
     sum(g.count_of_bucket_values) / (SELECT sum(count_of_bucket_values) FROM hdr_histogram) AS  cumulative_density
   FROM hdr_histogram g, hdr_histogram h
   WHERE g.bucket <= h.bucket
   GROUP BY h.bucket, h.count_of_bucket_values;

-- source: docs transform-data/patterns/index.md
CREATE VIEW birds_filtered AS
SELECT r.id AS rule_id, b.name, b.colors, b.wingspan_cm
FROM
-- retrieve bird rules
(SELECT id, starts_with, wingspan_operator, wingspan_cm, colors FROM bird_rules) AS r,
-- for each bird rule, find the birds who satisfy it
LATERAL (
    SELECT *
    FROM birds
    WHERE r.starts_with = SUBSTRING(birds.name, 1, 1)
        AND (
            (r.wingspan_operator = 'GTE' AND birds.wingspan_cm >= r.wingspan_cm)
            OR
            (r.wingspan_operator = 'LTE' AND birds.wingspan_cm <= r.wingspan_cm)
        )
        AND r.colors <@ birds.colors
) AS b;

-- source: docs transform-data/patterns/index.md
CREATE VIEW
        input_recent_bucketed
        AS
            SELECT
                id,
                date_bin(
                        '1 minute',
                        event_ts,
                        '2000-01-01 00:00:00+00'
                    )
                    + INTERVAL '1 minute'
                    AS window_end
            FROM input
            WHERE mz_now() <= event_ts + INTERVAL '30 days';

-- source: docs ingest-data/index.md
CREATE CLUSTER webhooks_cluster (SIZE = '25cc');

-- source: docs ingest-data/index.md
DROP SOURCE webhook_demo CASCADE;

-- source: docs integrations/client-libraries/golang/index.md
DROP SOURCE IF EXISTS auction CASCADE;

-- source: docs sql/alter-source/index.md
DROP SOURCE tbl_a, b CASCADE;

-- source: docs sql/create-source/index.md
DROP SOURCE table_1;

-- source: docs sql/drop-source/index.md
DROP SOURCE my_source;

-- source: docs sql/drop-source/index.md
DROP SOURCE my_source CASCADE;

-- source: docs sql/drop-source/index.md
DROP SOURCE my_source RESTRICT;

-- source: docs sql/drop-source/index.md
DROP SOURCE IF EXISTS my_source;

-- source: docs sql/index.md
DROP SOURCE auction CASCADE;

-- source: docs ingest-data/index.md
DROP SECRET demo_webhook;

-- source: docs sql/drop-secret/index.md
DROP SECRET kafka_sasl_password;

-- source: docs sql/drop-secret/index.md
DROP SECRET IF EXISTS kafka_sasl_password;

-- source: docs sql/drop-secret/index.md
DROP SECRET kafka_sasl_password CASCADE;

-- source: docs ingest-data/kafka/index.md
CREATE MATERIALIZED VIEW warpstream_click_stream_aggregate AS
        SELECT
            user_id,
            page_id,
            COUNT(*) AS count
        FROM warpstream_click_stream_source
        GROUP BY user_id, page_id;

-- source: docs ingest-data/postgres/index.md
CREATE MATERIALIZED VIEW v1.matview AS
    SELECT SUM(A) from v1.T;

-- source: docs manage/dbt/get-started/index.md
CREATE MATERIALIZED VIEW database.schema.materialized_view_history
WITH (RETAIN HISTORY FOR '1hr')
AS
SELECT
    col_a,
    count(*) as count
FROM database.schema.view_a
GROUP BY col_a;

-- source: docs manage/dbt/get-started/index.md
CREATE MATERIALIZED VIEW model_with_constraints
WITH (
        ASSERT NOT NULL col_with_constraints
     )
AS
SELECT NULL AS col_with_constraints,
       2 AS col_without_constraints;

-- source: docs security/cloud/access-control/index.md
CREATE MATERIALIZED VIEW orders_daily_totals AS
SELECT date_trunc('day',order_date) AS order_date,
      sum(subtotal) AS daily_total
FROM orders_view
GROUP BY date_trunc('day',order_date);

-- source: docs security/cloud/access-control/index.md
CREATE MATERIALIZED VIEW magic AS
SELECT o.*,i.price,o.quantity * i.price as subtotal
FROM orders as o
JOIN items as i
ON o.item = i.item;

-- source: docs sql/alter-sink/index.md
CREATE MATERIALIZED VIEW transition AS
   (SELECT matview_old.* FROM matview_old JOIN switch ON switch.value = false)
   UNION ALL
   (SELECT matview_new.* FROM matview_new JOIN switch ON switch.value = true)
   ;

-- source: docs sql/create-index/index.md
CREATE MATERIALIZED VIEW active_customers AS
    SELECT guid, geo_id, last_active_on
    FROM customer_source
    WHERE last_active_on > now() - INTERVAL '30' DAYS;

-- source: docs sql/create-index/index.md
CREATE MATERIALIZED VIEW active_customer_per_geo AS
    SELECT geo.name, count(*)
    FROM geo_regions AS geo
    JOIN active_customers ON active_customers.geo_id = geo.id
    GROUP BY geo.name;

-- source: docs sql/create-index/index.md
CREATE MATERIALIZED VIEW active_customers AS
    SELECT guid, geo_id, last_active_on
    FROM customer_source
    GROUP BY geo_id;

-- source: docs sql/create-materialized-view/index.md
CREATE MATERIALIZED VIEW winning_bids AS
SELECT DISTINCT ON (a.id) b.*, a.item, a.seller
FROM auctions AS a
JOIN bids AS b
  ON a.id = b.auction_id
WHERE b.bid_time < a.end_time
  AND mz_now() >= a.end_time
ORDER BY a.id,
  b.amount DESC,
  b.bid_time,
  b.buyer;

-- source: docs sql/create-sink/index.md
CREATE MATERIALIZED VIEW deduped AS
  SELECT DISTINCT ON (k) v
  FROM original_input
  ORDER BY k, v DESC;

-- source: docs sql/create-source/index.md
CREATE MATERIALIZED VIEW my_webhook_idempotent AS (
  SELECT DISTINCT ON (body->>'unique_id') *
  FROM my_webhook_source
  ORDER BY id
);

-- source: docs sql/create-source/index.md
CREATE MATERIALIZED VIEW my_build_jobs_merged AS (
  SELECT DISTINCT ON (id) *
  FROM (
    SELECT
      body->>'id' as id,
      try_parse_monotonic_iso8601_timestamp(body->>'started_at') as started_at,
      try_parse_monotonic_iso8601_timestamp(body->>'finished_at') as finished_at
    FROM my_build_jobs_source
  )
  ORDER BY id, finished_at NULLS LAST, started_at NULLS LAST
);

-- source: docs sql/drop-table/index.md
CREATE MATERIALIZED VIEW t_view AS SELECT sum(a) AS sum FROM t;

-- source: docs sql/explain-plan/index.md
CREATE MATERIALIZED VIEW my_mat_view AS
SELECT a.id, sum(b.amount) FROM accounts a JOIN bids b ON(a.id = b.buyer) GROUP BY a.id;

-- source: docs sql/functions/array_agg/index.md
CREATE MATERIALIZED VIEW foo_view AS SELECT * FROM foo;

-- source: docs sql/functions/index.md
CREATE MATERIALIZED VIEW foo_view AS SELECT key_col, val_col FROM foo;

-- source: docs sql/functions/index.md
CREATE MATERIALIZED VIEW cant_materialize
    AS SELECT now(), mz_now(), * FROM events;

-- source: docs sql/select/index.md
CREATE MATERIALIZED VIEW connected AS
WITH MUTUALLY RECURSIVE
  connected(src_id char(1), dst_id char(1)) AS (
    SELECT DISTINCT src_id, tgt_id FROM transfers WHERE mz_now() <= ts + interval '10s'
    UNION
    SELECT c1.src_id, c2.dst_id FROM connected c1 JOIN connected c2 ON c1.dst_id = c2.src_id
  )
SELECT src_id, dst_id FROM connected;

-- source: docs sql/select/index.md
CREATE MATERIALIZED VIEW strongly_connected_components AS
  WITH
    symmetric(src_id, dst_id) AS (
      SELECT src_id, dst_id FROM connected
      INTERSECT ALL
      SELECT dst_id, src_id FROM connected
    )
  SELECT u.id, least(min(c.dst_id), u.id)
  FROM users u
  LEFT JOIN symmetric c ON(u.id = c.src_id)
  GROUP BY u.id;

-- source: docs sql/select/index.md
CREATE MATERIALIZED VIEW area_balances AS
  WITH MUTUALLY RECURSIVE
    user_balances(id char(1), balance numeric) AS (
      WITH
        credits AS (
          SELECT src_id as id, sum(amount) credit
          FROM transfers
          WHERE mz_now() <= ts + interval '10s'
          GROUP BY src_id
        ),
        debits AS (
          SELECT tgt_id as id, sum(amount) debit
          FROM transfers
          WHERE mz_now() <= ts + interval '10s'
          GROUP BY tgt_id
        )
      SELECT
        id,
        coalesce(debit, 0) - coalesce(credit, 0) as balance
      FROM
        users
        LEFT JOIN credits USING(id)
        LEFT JOIN debits USING(id)
    ),
    direct_balances(id int, parent int, balance numeric) AS (
      SELECT
        a.id as id,
        a.parent as parent,
        coalesce(sum(ub.balance), 0) as balance
      FROM
        areas a
        LEFT JOIN users u ON (a.id = u.area_id)
        LEFT JOIN user_balances ub ON (u.id = ub.id)
      GROUP BY
        a.id, a.parent
    ),
    indirect_balances(id int, parent int, balance numeric) AS (
      SELECT
        db.id as id,
        db.parent as parent,
        db.balance + coalesce(sum(ib.balance), 0) as balance
      FROM
        direct_balances db
        LEFT JOIN indirect_balances ib ON (db.id = ib.parent)
      GROUP BY
        db.id, db.parent, db.balance
    )
  SELECT
    id, balance
  FROM
    indirect_balances;

-- source: docs transform-data/dataflow-troubleshooting/index.md
CREATE MATERIALIZED VIEW num_bids AS
  SELECT auctions.item, count(bids.id) AS number_of_bids
  FROM bids
  JOIN auctions ON bids.auction_id = auctions.id
  WHERE bids.bid_time < auctions.end_time
  GROUP BY auctions.item;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/idiomatic-sql-chart/index.md
CREATE MATERIALIZED VIEW forecast_completed_orders_duplicates_possible AS
SELECT item, quantity, status from orders
WHERE status = 'Shipped'
UNION ALL
SELECT item, quantity, status from orders
WHERE order_date + interval '30' minutes >= mz_now()
;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/idiomatic-sql-chart/index.md
CREATE MATERIALIZED VIEW forecast_completed_orders_deduplicated_union_all AS
SELECT item, quantity, status from orders
WHERE status = 'Shipped'
UNION ALL
SELECT item, quantity, status from orders
WHERE order_date + interval '30' minutes >= mz_now()
AND status != 'Shipped' -- Deduplicate by excluding those with status 'Shipped'
;

-- source: docs transform-data/idiomatic-materialize-sql/appendix/idiomatic-sql-chart/index.md
CREATE MATERIALIZED VIEW forecast_completed_orders_deduplicated_results AS
SELECT item, quantity, status from orders
WHERE status = 'Shipped'
UNION
SELECT item, quantity, status from orders
WHERE order_date + interval '30' minutes >= mz_now()
;

-- source: docs transform-data/index.md
CREATE MATERIALIZED VIEW max_course_id_per_teacher AS
SELECT teacher_id, MAX(course_id)
FROM sections
GROUP BY teacher_id;

-- source: docs transform-data/index.md
CREATE MATERIALIZED VIEW max_course_id_per_teacher AS
SELECT teacher_id, MAX(course_id)
FROM sections
GROUP BY teacher_id
OPTIONS (AGGREGATE INPUT GROUP SIZE = 1000);

-- source: docs transform-data/index.md
CREATE MATERIALIZED VIEW section_of_top_course_per_teacher AS
SELECT DISTINCT ON(teacher_id) teacher_id, id AS section_id
FROM sections
OPTIONS (DISTINCT ON INPUT GROUP SIZE = 1000)
ORDER BY teacher_id ASC, course_id DESC;

-- source: docs transform-data/index.md
CREATE MATERIALIZED VIEW sections_of_top_3_courses_per_teacher AS
SELECT id AS teacher_id, section_id
FROM teachers grp,
     LATERAL (SELECT id AS section_id
              FROM sections
              WHERE teacher_id = grp.id
              OPTIONS (LIMIT INPUT GROUP SIZE = 1000)
              ORDER BY course_id DESC
              LIMIT 3);

-- source: docs transform-data/patterns/durable-subscriptions/index.md
CREATE MATERIALIZED VIEW winning_bids
   WITH (RETAIN HISTORY FOR '1hr') AS
   SELECT auction_id,
         bid_id,
         item,
         amount
   FROM highest_bid_per_auction
   WHERE end_time < mz_now();

-- source: docs transform-data/patterns/index.md
CREATE MATERIALIZED VIEW tracking_tasks AS
    SELECT
      name,
      created_ts + ttl as expiration_time
    FROM tasks
    WHERE mz_now() < created_ts + ttl;

-- source: docs transform-data/patterns/index.md
CREATE MATERIALIZED VIEW output
        AS
            SELECT
              id,
              count(id) AS count,
              window_end
            FROM input_recent_bucketed
            WHERE
                mz_now() >= window_end
                    AND
                mz_now() < window_end + INTERVAL '7 days'
            GROUP BY window_end, id;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE MATERIALIZED VIEW auction_house.mv_winning_bids
     IN CLUSTER compute_cluster
   AS
   SELECT
       a.id AS auction_id,
       a.item,
       a.end_time,
       b.id AS winning_bid_id,
       b.amount AS winning_amount,
       b.bid_time AS winning_bid_time,
       u.id AS winner_id,
       u.name AS winner_name,
       o.id AS winner_org_id,
       o.name AS winner_org_name
   FROM auction_house.auctions a
   JOIN auction_house.bids b ON a.id = b.auction_id
   JOIN auction_house.users u ON b.buyer = u.id
   JOIN auction_house.organizations o ON u.org_id = o.id
   WHERE a.end_time < mz_now()
   AND b.amount = (
       SELECT MAX(b2.amount)
       FROM auction_house.bids b2
       WHERE b2.auction_id = a.id
   );

-- source: docs transform-data/updating-materialized-views/index.md
CREATE MATERIALIZED VIEW auction_house.mv_org_leaderboard
     IN CLUSTER compute_cluster
   AS
   SELECT
       winner_org_id AS org_id,
       winner_org_name AS org_name,
       COUNT(*) AS total_wins,
       SUM(winning_amount) AS total_spent,
       AVG(winning_amount)::NUMERIC(10,2) AS avg_winning_bid,
       MAX(winning_amount) AS highest_winning_bid,
       MIN(winning_amount) AS lowest_winning_bid
   FROM auction_house.mv_winning_bids
   GROUP BY winner_org_id, winner_org_name;

-- source: docs ingest-data/mysql/amazon-aurora/index.md
CREATE CLUSTER ingest_mysql (SIZE = '200cc');

-- source: docs ingest-data/mysql/amazon-aurora/index.md
ALTER CLUSTER ingest_mysql SET (SIZE '100cc');

-- source: docs ingest-data/mysql/amazon-aurora/index.md
SHOW CLUSTER REPLICAS WHERE cluster = 'ingest_mysql';

-- source: docs ingest-data/sql-server/index.md
SHOW CLUSTER REPLICAS WHERE cluster = 'ingest_sqlserver';

-- source: docs sql/drop-cluster-replica/index.md
SHOW CLUSTER REPLICAS WHERE cluster = 'auction_house';

-- source: docs sql/index.md
SHOW CLUSTER REPLICAS;

-- source: docs sql/index.md
SHOW CLUSTER REPLICAS WHERE cluster = 'quickstart';

-- source: docs ingest-data/postgres/index.md
CREATE TABLE v1.T
    FROM SOURCE my_source(REFERENCE public.T);

-- source: docs ingest-data/postgres/index.md
CREATE TABLE v2.T
    FROM SOURCE my_source(REFERENCE public.T);

-- source: docs ingest-data/postgres/index.md
CREATE TABLE v3.T
    FROM SOURCE my_source(REFERENCE public.T) WITH (EXCLUDE COLUMNS (B));

-- source: docs security/cloud/access-control/index.md
CREATE TABLE items(
    item text NOT NULL,
    price numeric(8,4) NOT NULL,
    currency text NOT NULL DEFAULT 'USD'
  );

-- source: docs security/cloud/access-control/index.md
CREATE TABLE orders (
      order_id int NOT NULL,
      order_date timestamp NOT NULL,
      item text NOT NULL,
      quantity int NOT NULL,
      status text NOT NULL
  );

-- source: docs security/cloud/access-control/index.md
CREATE TABLE sales_items (
    week_of date NOT NULL,
    items text[]
  );

-- source: docs security/cloud/access-control/index.md
CREATE TABLE only_lemon (id INT);

-- source: docs security/cloud/access-control/index.md
CREATE TABLE shared_lemon (id INT);

-- source: docs serve-results/sink/index.md
CREATE TABLE s3_table_parquet (
    col VARIANT
);

-- source: docs serve-results/sink/index.md
CREATE TABLE s3_table_csv (
    col_1 INT,
    col_2 TEXT,
    col_3 TIMESTAMP
);

-- source: docs sql/alter-schema/index.md
CREATE TABLE blue.numbers (n int);

-- source: docs sql/alter-schema/index.md
CREATE TABLE green.tags (tag text);

-- source: docs sql/alter-sink/index.md
CREATE TABLE switch (value bool);

-- source: docs sql/create-sink/index.md
CREATE TABLE t (key int NOT NULL, value text NOT NULL);

-- source: docs sql/create-table/index.md
CREATE TABLE mytable (a int, b text NOT NULL);

-- source: docs sql/create-table/index.md
CREATE TABLE orders
FROM SOURCE pg_source(REFERENCE public.orders)
;

-- source: docs sql/delete/index.md
CREATE TABLE delete_me (a int, b text);

-- source: docs sql/delete/index.md
CREATE TABLE delete_using (b text);

-- source: docs sql/drop-table/index.md
CREATE TABLE t (a int, b text NOT NULL);

-- source: docs sql/drop-type/index.md
CREATE TABLE t (a int4_list);

-- source: docs sql/explain-schema/index.md
CREATE TABLE t (c1 int, c2 text);

-- source: docs sql/functions/csv_extract/index.md
CREATE TABLE t (id int, data string);

-- source: docs sql/functions/index.md
CREATE TABLE events (
    content TEXT,
    event_ts TIMESTAMP
);

-- source: docs sql/functions/index.md
CREATE TABLE quizzes(scores int list);

-- source: docs sql/index.md
CREATE TABLE s (a text);

-- source: docs sql/index.md
CREATE TABLE example_table (a int, b text);

-- source: docs sql/select/index.md
CREATE TABLE areas(id int not null, parent int, name text);

-- source: docs sql/select/index.md
CREATE TABLE users(id char(1) not null, area_id int not null, name text);

-- source: docs sql/select/index.md
CREATE TABLE transfers(src_id char(1), tgt_id char(1), amount numeric, ts timestamp);

-- source: docs sql/types/index.md
CREATE TABLE unscaled (c NUMERIC);

-- source: docs sql/types/index.md
CREATE TABLE scaled (c NUMERIC(39, 20));

-- source: docs transform-data/index.md
CREATE TABLE teachers (id INT, name TEXT);

-- source: docs transform-data/index.md
CREATE TABLE sections (id INT, teacher_id INT, course_id INT, schedule TEXT);

-- source: docs transform-data/index.md
CREATE TABLE courses (id INT, name TEXT);

-- source: docs transform-data/patterns/index.md
CREATE TABLE events (event_ts timestamptz, body jsonb)
WITH (
    PARTITION BY (event_ts)
);

-- source: docs transform-data/patterns/index.md
CREATE TABLE events (
        event_ts timestamptz,
        content text
    ) WITH (
        PARTITION BY (event_ts)
    );

-- source: docs transform-data/patterns/index.md
CREATE TABLE venues (
        country_code text,
        id bigint,
        name text
    ) WITH (
        PARTITION BY (country_code)
    );

-- source: docs transform-data/patterns/index.md
CREATE TABLE input (value BIGINT);

-- source: docs transform-data/patterns/index.md
CREATE TABLE birds (
    id INT,
    name VARCHAR(50),
    wingspan_cm FLOAT,
    colors jsonb
    );

-- source: docs transform-data/patterns/index.md
CREATE TABLE bird_rules (
    id INT,
    starts_with CHAR(1),
    wingspan_operator VARCHAR(3),
    wingspan_cm FLOAT,
    colors JSONB
    );

-- source: docs transform-data/patterns/index.md
CREATE TABLE events (
        content TEXT,
        event_ts TIMESTAMP
    );

-- source: docs transform-data/patterns/index.md
CREATE TABLE tasks (name TEXT, created_ts TIMESTAMP, ttl INTERVAL);

-- source: docs transform-data/patterns/index.md
CREATE TABLE input (id INT, event_ts TIMESTAMP);

-- source: docs ingest-data/postgres/index.md
CREATE SCHEMA v1;

-- source: docs ingest-data/postgres/index.md
CREATE SCHEMA v2;

-- source: docs ingest-data/postgres/index.md
CREATE SCHEMA v3;

-- source: docs security/cloud/access-control/index.md
CREATE SCHEMA IF NOT EXISTS mydb.sales;

-- source: docs sql/alter-schema/index.md
CREATE SCHEMA blue;

-- source: docs sql/alter-schema/index.md
CREATE SCHEMA green;

-- source: docs sql/create-schema/index.md
CREATE SCHEMA my_db.my_schema;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE SCHEMA IF NOT EXISTS auction_house;

-- source: docs security/cloud/access-control/index.md
ALTER TABLE mydb.sales.shared_lemon OWNER TO view_manager;

-- source: docs ingest-data/postgres/index.md
ALTER SCHEMA v1 SWAP WITH v3;

-- source: docs sql/alter-schema/index.md
ALTER SCHEMA blue SWAP WITH green;

-- source: docs ingest-data/postgres/index.md
DROP SCHEMA v3 CASCADE;

-- source: docs sql/drop-schema/index.md
DROP SCHEMA my_schema;

-- source: docs sql/drop-schema/index.md
DROP SCHEMA my_schema CASCADE;

-- source: docs sql/drop-schema/index.md
DROP SCHEMA my_schema RESTRICT;

-- source: docs sql/drop-schema/index.md
DROP SCHEMA IF EXISTS my_schema;

-- source: docs ingest-data/postgres/index.md
ALTER CLUSTER your_source_cluster SET (SIZE = 'M.1-large');

-- source: docs ingest-data/sql-server/index.md
CREATE CLUSTER ingest_sqlserver (SIZE = '200cc');

-- source: docs ingest-data/sql-server/index.md
ALTER CLUSTER ingest_sqlserver SET (SIZE '100cc');

-- source: docs integrations/client-libraries/golang/index.md
DROP MATERIALIZED VIEW IF EXISTS amount_sum;

-- source: docs integrations/client-libraries/index.md
DROP MATERIALIZED VIEW IF EXISTS ammount_sum;

-- source: docs sql/alter-sink/index.md
DROP MATERIALIZED VIEW transition;

-- source: docs sql/drop-materialized-view/index.md
DROP MATERIALIZED VIEW winning_bids;

-- source: docs transform-data/updating-materialized-views/index.md
DROP MATERIALIZED VIEW auction_house.mv_winning_bids_v2;

-- source: docs integrations/client-libraries/golang/index.md
DROP TABLE IF EXISTS countries;

-- source: docs sql/alter-sink/index.md
DROP TABLE switch;

-- source: docs sql/drop-table/index.md
DROP TABLE t;

-- source: docs sql/drop-table/index.md
DROP TABLE t CASCADE;

-- source: docs sql/drop-table/index.md
DROP TABLE t RESTRICT;

-- source: docs sql/drop-table/index.md
DROP TABLE IF EXISTS t;

-- source: docs transform-data/patterns/index.md
DROP TABLE birds CASCADE;

-- source: docs transform-data/patterns/index.md
DROP TABLE bird_rules CASCADE;

-- source: docs manage/dbt/get-started/index.md
SHOW VIEWS;

-- source: docs manage/dbt/get-started/index.md
SHOW MATERIALIZED VIEWS;

-- source: docs manage/dbt/get-started/index.md
SHOW MATERIALIZED VIEWS FROM public_etl_failure;

-- source: docs sql/index.md
SHOW MATERIALIZED VIEWS LIKE '%bid%';

-- source: docs manage/dbt/get-started/index.md
SHOW SCHEMAS;

-- source: docs sql/create-schema/index.md
SHOW SCHEMAS FROM my_db;

-- source: docs sql/index.md
SHOW SCHEMAS FROM my_db;

-- source: docs security/cloud/access-control/index.md
CREATE CLUSTER source_cluster (SIZE = '25cc');

-- source: docs security/cloud/access-control/index.md
CREATE CLUSTER compute_cluster (SIZE = '25cc');

-- source: docs self-managed-deployments/index.md
CREATE CLUSTER compute_cluster SIZE = '100cc', REPLICATION FACTOR = 2;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER compute_cluster SIZE = 'M.1-small';

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER compute_cluster SIZE = '300cc';

-- source: docs security/cloud/access-control/index.md
CREATE CLUSTER serving_cluster (SIZE = '25cc');

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER serving_cluster SIZE = 'M.1-small';

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER serving_cluster SIZE = '300cc';

-- source: docs security/cloud/access-control/index.md
CREATE DATABASE IF NOT EXISTS mydb;

-- source: docs sql/create-database/index.md
CREATE DATABASE IF NOT EXISTS my_db;

-- source: docs sql/index.md
CREATE DATABASE my_db;

-- source: docs self-managed-deployments/index.md
CREATE CLUSTER my_cluster SIZE = '100cc', REPLICATION FACTOR = 2;

-- source: docs self-managed-deployments/index.md
CREATE CLUSTER ingest_cluster SIZE = '50cc', REPLICATION FACTOR = 1;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER ingest_cluster SIZE = 'M.1-small';

-- source: docs transform-data/updating-materialized-views/index.md
CREATE CLUSTER ingest_cluster SIZE = '300cc';

-- source: docs self-managed-deployments/index.md
ALTER CLUSTER compute_cluster SET (SIZE = '200cc');

-- source: docs self-managed-deployments/index.md
ALTER CLUSTER mz_catalog_server SET (SIZE = '50cc');

-- source: docs self-managed-deployments/index.md
show clusters;

-- source: docs sql/index.md
SHOW CLUSTERS;

-- source: docs sql/index.md
SHOW CLUSTERS LIKE 'auction_%';

-- source: docs serve-results/index.md
BEGIN;

-- source: docs serve-results/index.md
COMMIT;

-- source: docs sql/alter-sink/index.md
CREATE SINK avro_sink
  FROM matview_old
  INTO KAFKA CONNECTION kafka_connection (TOPIC 'test_avro_topic')
  KEY (key_col)
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection
  ENVELOPE UPSERT
;

-- source: docs sql/create-sink/index.md
CREATE SINK s
  FROM deduped
  INTO KAFKA CONNECTION kafka_connection (TOPIC 't')
  KEY (k)
  FORMAT JSON ENVELOPE UPSERT;

-- source: docs sql/create-sink/index.md
CREATE SINK s
  FROM original_input
  INTO KAFKA CONNECTION kafka_connection (TOPIC 't')
  -- We have outside knowledge that `k` is a unique key of `original_input`, but
  -- Materialize cannot prove this, so we disable its key uniqueness check.
  KEY (k) NOT ENFORCED
  FORMAT JSON ENVELOPE UPSERT;

-- source: docs sql/create-sink/index.md
CREATE SINK docs_sink
FROM t
INTO KAFKA CONNECTION kafka_connection (TOPIC 'doc-commont-example')
KEY (key)
FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_connection (
    DOC ON TYPE t = 'Top-level comment for container record in both key and value schemas',
    KEY DOC ON COLUMN t.key = 'Comment on column only in key schema',
    VALUE DOC ON COLUMN t.key = 'Comment on column only in value schema'
)
ENVELOPE UPSERT;

-- source: docs sql/alter-cluster-replica/index.md
ALTER CLUSTER REPLICA production.r1 OWNER TO admin;

-- source: docs sql/alter-cluster/index.md
ALTER CLUSTER c1
SET (SIZE 'M.1-xsmall') WITH (WAIT UNTIL READY (TIMEOUT = '10m', ON TIMEOUT = 'COMMIT'));

-- source: docs sql/alter-cluster/index.md
ALTER CLUSTER c1 SET (REPLICATION FACTOR 2);

-- source: docs sql/alter-cluster/index.md
ALTER CLUSTER c1 SET (SIZE 'M.1-xsmall');

-- source: docs sql/alter-cluster/index.md
ALTER CLUSTER c1 SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour'));

-- source: docs sql/alter-cluster/index.md
ALTER CLUSTER c1 SET (MANAGED);

-- source: docs sql/alter-materialized-view/index.md
ALTER MATERIALIZED VIEW winning_bids
APPLY REPLACEMENT winning_bids_replacement;

-- source: docs transform-data/patterns/durable-subscriptions/index.md
ALTER MATERIALIZED VIEW winning_bids SET (RETAIN HISTORY FOR '2hr');

-- source: docs transform-data/patterns/durable-subscriptions/index.md
ALTER MATERIALIZED VIEW winning_bids RESET (RETAIN HISTORY);

-- source: docs transform-data/updating-materialized-views/index.md
ALTER MATERIALIZED VIEW auction_house.mv_winning_bids
  APPLY REPLACEMENT auction_house.mv_winning_bids_v2;

-- source: docs sql/alter-secret/index.md
ALTER SECRET kafka_ca_cert AS decode('c2VjcmV0Cg==', 'base64');

-- source: docs sql/alter-sink/index.md
ALTER SINK avro_sink
  SET FROM matview_new
;

-- source: docs sql/alter-sink/index.md
ALTER SINK avro_sink SET FROM transition;

-- source: docs sql/alter-sink/index.md
ALTER SINK avro_sink SET FROM matview_new;

-- source: docs sql/create-cluster-replica/index.md
CREATE CLUSTER REPLICA c1.r1 (SIZE = 'M.1-large');

-- source: docs sql/create-cluster/index.md
CREATE CLUSTER my_scheduled_cluster (
  SIZE = 'M.1-large',
  SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour')
);

-- source: docs sql/create-materialized-view/index.md
CREATE CLUSTER my_scheduled_cluster (
  SIZE = '3200cc',
  SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour')
);

-- source: docs sql/create-cluster/index.md
ALTER CLUSTER my_scheduled_cluster SET (SCHEDULE = MANUAL, REPLICATION FACTOR = 1);

-- source: docs sql/create-cluster/index.md
ALTER CLUSTER my_scheduled_cluster
SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour'));

-- source: docs sql/create-materialized-view/index.md
ALTER CLUSTER my_scheduled_cluster
SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '30 minutes'));

-- source: docs sql/create-cluster/index.md
CREATE CLUSTER c1 (SIZE = 'M.1-large', REPLICATION FACTOR = 2);

-- source: docs sql/create-cluster/index.md
CREATE CLUSTER c1 (SIZE 'M.1-xsmall', REPLICATION FACTOR = 0);

-- source: docs sql/create-database/index.md
SHOW DATABASES;

-- source: docs sql/create-source/index.md
SHOW SOURCES;

-- source: docs sql/drop-schema/index.md
SHOW SOURCES FROM my_schema;

-- source: docs sql/index.md
SHOW SOURCES IN CLUSTER c2;

-- source: docs sql/create-source/index.md
ALTER SOURCE mz_source ADD SUBSOURCE table_1;

-- source: docs sql/drop-cluster/index.md
DROP CLUSTER auction_house;

-- source: docs sql/drop-cluster/index.md
DROP CLUSTER auction_house CASCADE;

-- source: docs sql/drop-cluster/index.md
DROP CLUSTER IF EXISTS auction_house;

-- source: docs sql/drop-connection/index.md
DROP CONNECTION kafka_connection;

-- source: docs sql/drop-connection/index.md
DROP CONNECTION IF EXISTS kafka_connection;

-- source: docs sql/drop-connection/index.md
DROP CONNECTION kafka_connection CASCADE;

-- source: docs sql/drop-database/index.md
DROP DATABASE my_db;

-- source: docs sql/drop-database/index.md
DROP DATABASE my_db CASCADE;

-- source: docs sql/drop-database/index.md
DROP DATABASE my_db RESTRICT;

-- source: docs sql/drop-database/index.md
DROP DATABASE IF EXISTS my_db;

-- source: docs sql/drop-sink/index.md
SHOW SINKS;

-- source: docs sql/index.md
SHOW SINKS;

-- source: docs sql/index.md
SHOW SINKS IN CLUSTER c1;

-- source: docs sql/drop-sink/index.md
DROP SINK my_sink;

-- source: docs sql/drop-table/index.md
SHOW TABLES;

-- source: docs sql/index.md
SHOW TABLES FROM public;

-- source: docs sql/drop-view/index.md
DROP VIEW my_view;

-- source: docs sql/explain-analyze/index.md
DROP VIEW winning_bids CASCADE;

-- source: docs sql/index.md
ROLLBACK;

-- source: docs sql/index.md
SHOW CONNECTIONS;

-- source: docs sql/index.md
SHOW CONNECTIONS LIKE 'kafka%';

-- source: docs sql/index.md
SHOW CREATE CLUSTER c;

-- source: docs sql/index.md
SHOW CREATE CONNECTION kafka_connection;

-- source: docs sql/index.md
SHOW INDEXES FROM my_view;

-- source: docs sql/index.md
SHOW INDEXES ON my_materialized_view;

-- source: docs sql/index.md
SHOW CREATE INDEX my_view_idx;

-- source: docs sql/index.md
SHOW CREATE MATERIALIZED VIEW winning_bids;

-- source: docs sql/index.md
SHOW CREATE SINK my_view_sink;

-- source: docs sql/index.md
SHOW CREATE SOURCE market_orders_raw;

-- source: docs sql/index.md
SHOW CREATE TABLE t;

-- source: docs sql/index.md
SHOW CREATE VIEW my_view;

-- source: docs sql/index.md
SHOW OBJECTS FROM public;

-- source: docs sql/index.md
SHOW OBJECTS;

-- source: docs sql/index.md
SHOW SECRETS;

-- source: docs sql/index.md
SHOW SECRETS FROM public LIKE '%cert%';

-- source: docs sql/comment-on/index.md
COMMENT ON TABLE foo IS 'this table is important';

-- source: docs sql/comment-on/index.md
COMMENT ON COLUMN foo.x IS 'holds all of the important data';

-- source: docs sql/comment-on/index.md
COMMENT ON TABLE foo IS 'holds non-important data';

-- source: docs sql/comment-on/index.md
COMMENT ON TABLE foo IS NULL;

-- source: docs sql/create-sink/index.md
COMMENT ON TABLE t IS 'SQL comment on t';

-- source: docs sql/create-sink/index.md
COMMENT ON COLUMN t.value IS 'SQL comment on t.value';

-- source: docs sql/explain-schema/index.md
COMMENT ON TABLE t IS 'materialize comment on t';

-- source: docs sql/explain-schema/index.md
COMMENT ON COLUMN t.c2 IS 'materialize comment on t.c2';

-- ============================================================================================
-- Part 2: statements from Materialize's own tests (MaterializeInc/materialize, test/), the ones
-- the tests run expecting success ("statement ok", testdrive "> ..."). Testdrive's ${...}
-- substitutions are kept as typed where they sit inside string literals; statements with a
-- substitution outside a literal are left out (they are not SQL until substituted).
-- ============================================================================================

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo REPLICAS ();

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER foo;

-- source: test/sqllogictest/cluster.slt
SELECT * FROM mz_clusters;

-- source: test/sqllogictest/cluster.slt
SHOW CLUSTERS;

-- source: test/sqllogictest/cluster.slt
SHOW CLUSTERS LIKE 'd%';

-- source: test/sqllogictest/cluster.slt
CREATE MATERIALIZED VIEW v AS SELECT 1;

-- source: test/sqllogictest/cluster.slt
SHOW INDEXES ON v IN CLUSTER bar;

-- source: test/sqllogictest/cluster.slt
CREATE DEFAULT INDEX foo_v_idx IN CLUSTER foo ON v;

-- source: test/sqllogictest/cluster.slt
SHOW INDEXES IN CLUSTER bar;

-- source: test/sqllogictest/cluster.slt
SHOW INDEXES;

-- source: test/sqllogictest/cluster.slt
CREATE VIEW unmat AS SELECT 1;

-- source: test/sqllogictest/cluster.slt
SELECT name FROM mz_indexes WHERE name NOT LIKE 'mz_%';

-- source: test/sqllogictest/cluster.slt
CREATE DEFAULT INDEX IN CLUSTER bar ON v;

-- source: test/sqllogictest/cluster.slt
SHOW INDEXES IN CLUSTER bar WHERE on_name = 'v';

-- source: test/sqllogictest/cluster.slt
DROP INDEX v_primary_idx;

-- source: test/sqllogictest/cluster.slt
DROP INDEX v_primary_idx1;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA bar.r1;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA bar.r2;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER bar;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER foo CASCADE;

-- source: test/sqllogictest/cluster.slt
CREATE DEFAULT INDEX IN CLUSTER baz ON v;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER baz CASCADE;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo REPLICAS (a (SIZE '1'));

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo2 REPLICAS (a (SIZE '32'));

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo3 REPLICAS (a (SIZE '2-2'));

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER foo, foo2, foo3 CASCADE;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER test REPLICAS (foo (SIZE '1'));

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER test CASCADE;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER REPLICA default.size_1 SIZE '1';

-- source: test/sqllogictest/cluster.slt
SHOW CLUSTER REPLICAS;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo REPLICAS (size_1 (SIZE '1'), size_2 (SIZE '2'));

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA IF EXISTS default.bar;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA IF EXISTS bar.foo;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA IF EXISTS default.foo;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA default.size_1;

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA foo.size_1, foo.size_2;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER REPLICA default.foo_bar SIZE '1';

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA default.foo_bar;

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER REPLICA default."foo-bar" SIZE '1';

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA default."foo-bar";

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER REPLICA default."好-好" SIZE '1';

-- source: test/sqllogictest/cluster.slt
DROP CLUSTER REPLICA default."好-好";

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER REPLICA default."好_好" SIZE '1';

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER empty REPLICAS ();

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo REPLICAS (size_2 (SIZE '1'));

-- source: test/sqllogictest/cluster.slt
CREATE TABLE t1 (f1 INTEGER);

-- source: test/sqllogictest/cluster.slt
CREATE CLUSTER foo REPLICAS (size_1 (SIZE '1'), size_32 (SIZE '32'), size_2_2 (SIZE '2-2'));

-- source: test/sqllogictest/cluster.slt
SELECT name, size, status FROM mz_cluster_replicas ORDER BY name;

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo SIZE '1';

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo RESET (REPLICATION FACTOR);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo RESET (AVAILABILITY ZONES);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo RESET (INTROSPECTION DEBUGGING);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo RESET (INTROSPECTION INTERVAL);

-- source: test/sqllogictest/managed_cluster.slt
SELECT id, name, managed, replication_factor, size FROM mz_clusters;

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER baz REPLICAS (), MANAGED = false;

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER baz RESET (REPLICAS);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER baz SET (MANAGED, SIZE '1');

-- source: test/sqllogictest/managed_cluster.slt
DROP CLUSTER baz;

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo SIZE '1', REPLICATION FACTOR 3;

-- source: test/sqllogictest/managed_cluster.slt
SELECT id, name, managed, replication_factor, size FROM mz_clusters WHERE name LIKE 'foo';

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (MANAGED = false);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (MANAGED, SIZE '1');

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (REPLICATION FACTOR 1);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (REPLICATION FACTOR 2);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (SIZE '2');

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (SIZE '1', REPLICATION FACTOR 1);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (REPLICATION FACTOR 0);

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (r1 (SIZE '1'), r2 (SIZE '2'));

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (c1 (SIZE '1'), r2 (SIZE '1'));

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (r1 (SIZE '1'), r2 (SIZE '1'));

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo RESET (MANAGED);

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (MANAGED, REPLICATION FACTOR 2);

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo SIZE '1', replication factor 1;

-- source: test/sqllogictest/managed_cluster.slt
CREATE SOURCE loadgen IN CLUSTER foo FROM LOAD GENERATOR COUNTER;

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (r1 (SIZE '1'), r2 (SIZE '1', DISK));

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (r1 (SIZE '1'));

-- source: test/sqllogictest/managed_cluster.slt
CREATE CLUSTER foo REPLICAS (r1 (SIZE '1', DISK), r2 (SIZE '1', DISK));

-- source: test/sqllogictest/managed_cluster.slt
ALTER CLUSTER foo SET (MANAGED, SIZE '1', DISK);

-- source: test/sqllogictest/alter.slt
CREATE CONNECTION c TO KAFKA (BROKER 'localhost:9092', SECURITY PROTOCOL PLAINTEXT) WITH (VALIDATE = false);

-- source: test/sqllogictest/alter.slt
SHOW CONNECTIONS;

-- source: test/sqllogictest/alter.slt
ALTER CONNECTION c RENAME TO d;

-- source: test/sqllogictest/alter.slt
CREATE CLUSTER other_cluster SIZE '1', REPLICATION FACTOR 0;

-- source: test/sqllogictest/alter.slt
CREATE MATERIALIZED VIEW mv AS SELECT 1;

-- source: test/sqllogictest/alter.slt
ALTER MATERIALIZED VIEW mv SET CLUSTER quickstart;

-- source: test/sqllogictest/alter.slt
CREATE TABLE t (a INT);

-- source: test/sqllogictest/alter.slt
CREATE INDEX i ON t(a);

-- source: test/sqllogictest/alter.slt
CREATE SOURCE s FROM LOAD GENERATOR COUNTER;

-- source: test/sqllogictest/alter.slt
ALTER MATERIALIZED VIEW mv SET (RETAIN HISTORY FOR '1m');

-- source: test/sqllogictest/alter.slt
ALTER MATERIALIZED VIEW mv RESET (RETAIN HISTORY);

-- source: test/sqllogictest/alter.slt
ALTER TABLE t SET (RETAIN HISTORY FOR '1m');

-- source: test/sqllogictest/alter.slt
ALTER TABLE t RESET (RETAIN HISTORY);

-- source: test/sqllogictest/alter.slt
ALTER INDEX i SET (RETAIN HISTORY FOR '1m');

-- source: test/sqllogictest/alter.slt
ALTER INDEX i RESET (RETAIN HISTORY);

-- source: test/sqllogictest/webhook.slt
CREATE CLUSTER webhook_cluster REPLICAS (r1 (SIZE '1'));

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_bytes IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT BYTES;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE "weird-name-(]%/'" IN CLUSTER webhook_cluster FROM WEBHOOK BODY FORMAT BYTES;

-- source: test/sqllogictest/webhook.slt
DROP SOURCE "weird-name-(]%/'";

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_bytes_include_headers IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT BYTES
    INCLUDE HEADERS;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_json IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT JSON;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_json_include_headers IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT JSON
    INCLUDE HEADERS;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_text IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT TEXT;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_text_include_headers IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT TEXT
    INCLUDE HEADERS;

-- source: test/sqllogictest/webhook.slt
CREATE MATERIALIZED VIEW mat_view_text IN CLUSTER webhook_cluster AS (
    SELECT body FROM webhook_text_include_headers
);

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE IF NOT EXISTS webhook_text_include_headers IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT TEXT
    INCLUDE HEADERS;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_bad_validation_expr IN CLUSTER webhook_cluster FROM WEBHOOK
    BODY FORMAT TEXT
    CHECK (
        WITH (HEADERS, BODY)
        decode(headers->'signature', 'base64') = hmac(headers->'timestamp' || '.' || body, 'key', 'sha256')
    );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_buildkite IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT JSON
  CHECK (
    WITH (HEADERS, BODY BYTES)
    decode(split_part(headers->'x-buildkite-signature', 'signature=', 1), 'hex') = hmac(
      split_part(split_part(headers->'x-buildkite-signature', 'timestamp=', 1), ',', 1) || '.' || convert_from(body, 'utf-8'),
      'test_key',
      'sha256'
    )
  );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_validation_with_now IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT BYTES
  CHECK (
    WITH (HEADERS)
    (headers->'event_ts'::text)::timestamp + INTERVAL '30s' >= now()
  );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_validation_with_current_timestamp IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT BYTES
  CHECK (
    WITH (HEADERS)
    headers->'event_ts' = current_timestamp()::text
  );

-- source: test/sqllogictest/webhook.slt
CREATE SECRET webhook_shared_secret AS 'test_key';

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_with_secret IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT BYTES
  CHECK (
    WITH ( HEADERS, SECRET webhook_shared_secret )
    headers->'signature' = webhook_shared_secret
  );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_buildkite2 IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT JSON
  CHECK (
    WITH ( HEADERS, BODY, SECRET webhook_shared_secret )
    decode(split_part(headers->'x-buildkite-signature', 'signature=', 1), 'hex') = hmac(
      split_part(split_part(headers->'x-buildkite-signature', 'timestamp=', 1), ',', 1) || '.' || body,
      webhook_shared_secret,
      'sha256'
    )
  );

-- source: test/sqllogictest/webhook.slt
ALTER SOURCE webhook_buildkite2 RENAME TO webhook_buildkite2_renamed;

-- source: test/sqllogictest/webhook.slt
SELECT * FROM webhook_buildkite2_renamed;

-- source: test/sqllogictest/webhook.slt
CREATE SECRET other_secret AS 'another_one';

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_with_two_secrets IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT BYTES
  CHECK (
    WITH (
      HEADERS, BODY BYTES,
      SECRET webhook_shared_secret AS key,
      SECRET other_secret BYTES
    )
    headers->'signature' = key AND body = other_secret
  );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_with_headers_and_body_alias IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT TEXT
  CHECK (
    WITH (
      HEADERS AS h1 BYTES,
      HEADERS,
      BODY AS b1,
      BODY BYTES
    )
    headers->'signature' = convert_from(h1->'signature', 'utf-8') AND b1 = convert_from(body, 'utf-8')
  );

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_text_with_mapped_headers IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT TEXT
  INCLUDE HEADER 'x-special-header' AS "specialHeader"
  INCLUDE HEADER 'x-hash' AS hash BYTES
  INCLUDE HEADER 'content-type' AS content_type;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_text_mapped_and_filtered_headers IN CLUSTER webhook_cluster FROM WEBHOOK
  BODY FORMAT TEXT
  INCLUDE HEADER 'x-hash' as hash BYTES
  INCLUDE HEADER 'content-type' as content_type
  INCLUDE HEADERS ('x-special-header');

-- source: test/sqllogictest/webhook.slt
CREATE CLUSTER compute_cluster REPLICAS (r1 (SIZE '1'));

-- source: test/sqllogictest/webhook.slt
CREATE MATERIALIZED VIEW mv1 IN CLUSTER compute_cluster AS SELECT name FROM mz_objects;

-- source: test/sqllogictest/webhook.slt
CREATE SOURCE webhook_on_compute_cluster IN CLUSTER compute_cluster FROM WEBHOOK
  BODY FORMAT BYTES;

-- source: test/sqllogictest/webhook.slt
SELECT name, type, status, error FROM mz_internal.mz_source_statuses WHERE name = 'webhook_bytes';

-- source: test/sqllogictest/webhook.slt
DROP SOURCE webhook_bytes;

-- source: test/sqllogictest/webhook.slt
DROP CLUSTER webhook_cluster CASCADE;

-- source: test/sqllogictest/webhook.slt
DROP CLUSTER compute_cluster CASCADE;

-- source: test/testdrive/connection-create-drop.td
CREATE SECRET s AS '...';

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION testconn TO KAFKA (BROKER '${testdrive.kafka-addr}', SECURITY PROTOCOL PLAINTEXT);

-- source: test/testdrive/connection-create-drop.td
SELECT name, type from mz_connections WHERE id LIKE 'u%';

-- source: test/testdrive/connection-create-drop.td
SHOW CREATE CONNECTION testconn;

-- source: test/testdrive/connection-create-drop.td
DROP CONNECTION testconn;

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION progress_override TO KAFKA (
    BROKER '${testdrive.kafka-addr}',
    PROGRESS TOPIC 'override_topic',
    PROGRESS TOPIC REPLICATION FACTOR 1,
    SECURITY PROTOCOL PLAINTEXT
  );

-- source: test/testdrive/connection-create-drop.td
CREATE CLUSTER connection_source_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/connection-create-drop.td
CREATE SOURCE connection_source
  IN CLUSTER connection_source_cluster
  FROM KAFKA CONNECTION testconn (TOPIC 'testdrive-connection_test-${testdrive.seed}');

-- source: test/testdrive/connection-create-drop.td
CREATE TABLE connection_source_tbl (first, second)
  FROM SOURCE connection_source (REFERENCE "testdrive-connection_test-${testdrive.seed}")
  FORMAT CSV WITH 2 COLUMNS;

-- source: test/testdrive/connection-create-drop.td
DROP CONNECTION testconn CASCADE;

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION csr_conn TO CONFLUENT SCHEMA REGISTRY (
    URL '${testdrive.schema-registry-url}'
  );

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION kafka_conn
  TO KAFKA (BROKER '${testdrive.kafka-addr}', SECURITY PROTOCOL PLAINTEXT);

-- source: test/testdrive/connection-create-drop.td
CREATE CLUSTER csr_source_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/connection-create-drop.td
BEGIN;

-- source: test/testdrive/connection-create-drop.td
CREATE SOURCE csr_source
    IN CLUSTER csr_source_cluster
    FROM KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-csr_test-${testdrive.seed}');

-- source: test/testdrive/connection-create-drop.td
CREATE TABLE csr_source_tbl FROM SOURCE csr_source (REFERENCE "testdrive-csr_test-${testdrive.seed}")
    FORMAT AVRO
    USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
    ENVELOPE DEBEZIUM;

-- source: test/testdrive/connection-create-drop.td
COMMIT;

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION broker_connection TO KAFKA (BROKER '${testdrive.kafka-addr}', SECURITY PROTOCOL PLAINTEXT);

-- source: test/testdrive/connection-create-drop.td
CREATE CLUSTER two_connection_source_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/connection-create-drop.td
CREATE SOURCE two_connection_source
  IN CLUSTER two_connection_source_cluster
  FROM KAFKA CONNECTION broker_connection (TOPIC 'testdrive-csr_test-${testdrive.seed}');

-- source: test/testdrive/connection-create-drop.td
CREATE TABLE two_connection_source_tbl FROM SOURCE two_connection_source (REFERENCE "testdrive-csr_test-${testdrive.seed}")
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/connection-create-drop.td
DROP CONNECTION csr_conn CASCADE;

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION proto_csr TO CONFLUENT SCHEMA REGISTRY (
    URL '${testdrive.schema-registry-url}'
  );

-- source: test/testdrive/connection-create-drop.td
CREATE CLUSTER import_connection_csr_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/connection-create-drop.td
CREATE SOURCE import_connection_csr
  IN CLUSTER import_connection_csr_cluster
  FROM KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-import-csr-${testdrive.seed}');

-- source: test/testdrive/connection-create-drop.td
CREATE TABLE import_connection_csr_tbl FROM SOURCE import_connection_csr (REFERENCE "testdrive-import-csr-${testdrive.seed}")
  FORMAT PROTOBUF USING CONFLUENT SCHEMA REGISTRY CONNECTION proto_csr;

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION ssh_conn TO SSH TUNNEL (
    HOST 'host',
    USER 'user',
    PORT 1
  );

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION kafka_sasl_lowercase_string_mechanism TO KAFKA (
    BROKER 'kafka:9092',
    SASL MECHANISMS = 'plain',
    SASL USERNAME = 'materialize',
    SASL PASSWORD = SECRET s
  ) WITH (VALIDATE = FALSE);

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION kafka_sasl_spongebob_string_mechanism TO KAFKA (
    BROKER 'kafka:9092',
    SASL MECHANISMS = 'pLaIN',
    SASL USERNAME = 'materialize',
    SASL PASSWORD = SECRET s
  ) WITH (VALIDATE = FALSE);

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION kafka_sasl_uppercase_ident_mechanism TO KAFKA (
    BROKER 'kafka:9092',
    SASL MECHANISMS = PLAIN,
    SASL USERNAME = 'materialize',
    SASL PASSWORD = SECRET s
  ) WITH (VALIDATE = FALSE);

-- source: test/testdrive/connection-create-drop.td
CREATE CONNECTION kafka_sasl_spongebob_ident_mechanism TO KAFKA (
    BROKER 'kafka:9092',
    SASL MECHANISMS = pLaIN,
    SASL USERNAME = 'materialize',
    SASL PASSWORD = SECRET s
  ) WITH (VALIDATE = FALSE);

-- source: test/testdrive/kafka-sinks.td
CREATE CONNECTION IF NOT EXISTS csr_conn TO CONFLUENT SCHEMA REGISTRY (
    URL '${testdrive.schema-registry-url}'
  );

-- source: test/testdrive/kafka-sinks.td
CREATE CLUSTER src_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/kafka-sinks.td
CREATE SOURCE src (a, b)
  IN CLUSTER src_cluster
  FROM KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-test-${testdrive.seed}')
  FORMAT CSV WITH 2 COLUMNS
  INCLUDE OFFSET;

-- source: test/testdrive/kafka-sinks.td
CREATE SOURCE src_materialized (a, b)
  IN CLUSTER src_materialized_cluster
  FROM KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-test-${testdrive.seed}')
  FORMAT CSV WITH 2 COLUMNS
  INCLUDE OFFSET;

-- source: test/testdrive/kafka-sinks.td
CREATE VIEW v1 AS
  SELECT a || b AS c FROM src;

-- source: test/testdrive/kafka-sinks.td
CREATE VIEW v2 AS
  SELECT a || b AS c FROM src_materialized;

-- source: test/testdrive/kafka-sinks.td
CREATE MATERIALIZED VIEW v3 AS
  SELECT a || b AS c FROM src;

-- source: test/testdrive/kafka-sinks.td
SHOW SINKS;

-- source: test/testdrive/kafka-sinks.td
CREATE CLUSTER snk1_cluster SIZE '${arg.default-storage-size}';

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk1
  IN CLUSTER snk1_cluster
  FROM src
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk1-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk2
  IN CLUSTER snk2_cluster
  FROM src_materialized
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk2-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk3
  IN CLUSTER snk3_cluster
  FROM v3
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk3-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE MATERIALIZED VIEW unsigned (a, b, c, d, e, f) AS
  VALUES ('1'::uint2, '2'::uint2, '3'::uint4, '4'::uint4, '5'::uint8, '6'::uint8);

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk_unsigned
  IN CLUSTER snk_unsigned_cluster
  FROM unsigned
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'snk2')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE MATERIALIZED VIEW v4 AS
  SELECT true AS c FROM src;

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk4
  IN CLUSTER snk4_cluster
  FROM v4
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk4-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk5
  IN CLUSTER snk5_cluster
  FROM src_materialized
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk5-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM
  WITH (SNAPSHOT = false);

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk6
  IN CLUSTER snk6_cluster
  FROM src_materialized
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk6-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM
  WITH (SNAPSHOT = true);

-- source: test/testdrive/kafka-sinks.td
CREATE MATERIALIZED VIEW foo AS VALUES (1), (2), (3);

-- source: test/testdrive/kafka-sinks.td
CREATE SINK snk8
  IN CLUSTER snk8_cluster
  FROM foo
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk8-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM
  WITH (SNAPSHOT);

-- source: test/testdrive/kafka-sinks.td
CREATE SINK default_cluster_sink
  FROM src
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk1-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: test/testdrive/kafka-sinks.td
CREATE CLUSTER c SIZE '4';

-- source: test/testdrive/kafka-sinks.td
CREATE SINK cluster_c_sink
  IN CLUSTER c
  FROM src
  INTO KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-snk1-${testdrive.seed}')
  FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
  ENVELOPE DEBEZIUM;

-- source: a Materialize platform check (testdrive fragment in Python; found by code search, file path not recorded)
CREATE CLUSTER REPLICA rename_replica.replica1 SIZE '2-2';

-- source: a Materialize platform check (testdrive fragment in Python; found by code search, file path not recorded)
CREATE CLUSTER REPLICA rename_replica.replica2 SIZE '2-2';

-- source: a Materialize platform check (testdrive fragment in Python; found by code search, file path not recorded)
ALTER CLUSTER REPLICA rename_replica.replica1 RENAME TO replica_new1;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE CLUSTER clusterd REPLICAS (r1 (
                    STORAGECTL ADDRESSES ['clusterd:2100'],
                    STORAGE ADDRESSES ['clusterd:2103'],
                    COMPUTECTL ADDRESSES ['clusterd:2101'],
                    COMPUTE ADDRESSES ['clusterd:2102']
                ));

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE CLUSTER REPLICA clusterd.r1
              STORAGECTL ADDRESSES ['clusterd:2100'],
              STORAGE ADDRESSES ['clusterd:2103'],
              COMPUTECTL ADDRESSES ['clusterd:2101'],
              COMPUTE ADDRESSES ['clusterd:2102'];

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
DROP TABLE IF EXISTS t CASCADE;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE TABLE t (a int, b int, c int, d int);

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE MATERIALIZED VIEW data AS
              SELECT a, a AS b FROM generate_series(1, 10000000) AS a
              UNION ALL
              SELECT a, b FROM t;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
DROP CLUSTER IF EXISTS idx_cluster CASCADE;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE CLUSTER idx_cluster SIZE '1-8G', REPLICATION FACTOR 1;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE VIEW accumulable AS
              SELECT
                a,
                sum(a) AS sum_a, count(a) as cnt_a,
                sum(b) AS sum_b, count(b) as cnt_b
              FROM data
              GROUP BY a;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE INDEX i_accumulable IN CLUSTER idx_cluster ON accumulable(a);

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
DROP CLUSTER IF EXISTS single_replica_cluster;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE SOURCE s1
              IN CLUSTER single_replica_cluster
              FROM KAFKA CONNECTION kafka_conn (TOPIC 'testdrive-topic1-${testdrive.seed}')
              FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr_conn
              ENVELOPE UPSERT;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
DROP CLUSTER REPLICA clusterd.r1;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE INDEX i1 IN CLUSTER clusterd ON s1 (f1);

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE TABLE t1 (key1 INTEGER, key2 INTEGER, key3 INTEGER, key4 INTEGER);

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE MATERIALIZED VIEW v1 IN CLUSTER clusterd AS SELECT key1, MIN(key2), MAX(key3) FROM t1 GROUP BY key1;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE DEFAULT INDEX ON v1;

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE TABLE t1 (key1 INTEGER, f1 STRING DEFAULT 'abcdefghi');

-- source: a Materialize bounded-memory mzcompose test (found by code search, file path not recorded)
CREATE MATERIALIZED VIEW v1
              IN CLUSTER clusterd AS
              SELECT * FROM t1 LEFT JOIN t2 ON (key1 = key2);

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
CREATE CLUSTER REPLICA compute_qck.r2 SIZE = '2xsmall';

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
SHOW CLUSTER REPLICAS WHERE CLUSTER = 'compute_qck';

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
DROP CLUSTER REPLICA compute_qck.r1;

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
CREATE CLUSTER REPLICA compute_qck.r3 SIZE = 'xsmall';

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
DROP SCHEMA qck CASCADE;

-- source: an older Materialize get-started guide (Markdown, found by code search, file path not recorded)
DROP CLUSTER ingest_qck;

-- source: docs ingest-data/mysql/amazon-aurora/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST '<host>',
    SSH TUNNEL ssh_connection
    );

-- source: docs ingest-data/sql-server/index.md
CREATE CONNECTION sql_server_connection TO SQL SERVER (
    HOST '<host>',
    SSH TUNNEL ssh_connection
    );

-- source: docs sql/create-connection/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 3306,
    USER 'root',
    PASSWORD SECRET mysqlpass
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 3306,
    USER 'root',
    PASSWORD SECRET mysqlpass,
    AWS PRIVATELINK privatelink_svc
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    SSH TUNNEL ssh_connection
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 3306,
    USER 'root',
    AWS CONNECTION aws_rds_mysql,
    SSL MODE 'verify_identity'
);

-- source: docs sql/create-connection/index.md
CREATE CONNECTION sqlserver_connection TO SQL SERVER (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 1433,
    USER 'SA',
    PASSWORD SECRET sqlserver_pass,
    DATABASE 'my_db'
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION mysql_connection TO MYSQL (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 3306,
    USER 'materialize',
    PASSWORD SECRET mysqlpass
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION sqlserver_connection TO SQL SERVER (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    PORT 1433,
    USER 'materialize',
    PASSWORD SECRET sqlserver_pass,
    DATABASE '<DATABASE_NAME>'
);

-- source: docs sql/create-source/index.md
CREATE CONNECTION sqlserver_connection TO SQL SERVER (
    HOST 'instance.foo000.us-west-1.rds.amazonaws.com',
    SSH TUNNEL ssh_connection,
    DATABASE '<DATABASE_NAME>'
);

-- source: docs ingest-data/mysql/amazon-aurora/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection
  FOR ALL TABLES;

-- source: docs ingest-data/sql-server/index.md
CREATE SOURCE mz_source
  FROM SQL SERVER CONNECTION sqlserver_connection
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection
  FOR TABLES (schema1.table_1 AS s1_table_1, schema2.table_1 AS s2_table_1);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection
  FOR SCHEMAS (mydb, project);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection
  FOR TABLES (mydb.table_1, mydb.table_2 AS alias_table_2);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection (
    TEXT COLUMNS (mydb.table_1.column_of_unsupported_type)
  )
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM MYSQL CONNECTION mysql_connection (
    EXCLUDE COLUMNS (mydb.table_1.column_to_ignore)
  )
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM SQL SERVER CONNECTION sql_server_connection
  FOR ALL TABLES;

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM SQL SERVER CONNECTION sql_server_connection
  FOR TABLES (schema1.table_1 AS s1_table_1, schema2.table_1 AS s2_table_1);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM SQL SERVER CONNECTION sqlserver_connection
  FOR TABLES (mydb.table_1, mydb.table_2 AS alias_table_2);

-- source: docs sql/create-source/index.md
CREATE SOURCE mz_source
  FROM SQL SERVER CONNECTION sqlserver_connection (
    EXCLUDE COLUMNS (mydb.table_1.column_of_unsupported_type)
  )
  FOR ALL TABLES;

-- source: docs ingest-data/index.md
-- errata: a trailing comma before ')' in the option list; Materialize's parser refuses it too (42601)
CREATE CONNECTION mysql_connection TO MYSQL (
  HOST '<host>',
  SSH TUNNEL ssh_connection,
);

-- source: docs sql/create-source/index.md
SHOW SUBSOURCES ON mz_source;

-- source: docs sql/index.md
SHOW SUBSOURCES ON pg;

-- source: docs sql/index.md
SHOW SUBSOURCES ON kafka;

-- source: docs sql/index.md
SHOW COLUMNS FROM my_source;

-- =====================================================================================
-- User-defined types (CREATE TYPE, DROP TYPE, SHOW TYPES), from the documentation's create-type, drop-type and
-- sql pages.

-- source: docs sql/create-type/index.md
CREATE TYPE int4_list AS LIST (ELEMENT TYPE = int4);

-- source: docs sql/create-type/index.md
CREATE TYPE int4_list_list AS LIST (ELEMENT TYPE = int4_list);

-- source: docs sql/create-type/index.md
CREATE TYPE int4_map AS MAP (KEY TYPE = text, VALUE TYPE = int4);

-- source: docs sql/create-type/index.md
CREATE TYPE int4_map_map AS MAP (KEY TYPE = text, VALUE TYPE = int4_map);

-- source: docs sql/create-type/index.md
CREATE TYPE row_type AS (a int, b text);

-- source: docs sql/create-type/index.md
CREATE TYPE nested_row_type AS (a row_type, b float8);

-- source: docs sql/index.md
CREATE TYPE custom_list AS LIST (ELEMENT TYPE int4);

-- source: docs sql/index.md
-- errata: ELEMENT TYPE is two words; Materialize reads element_type as one identifier and rejects it
CREATE TYPE custom_nested_list AS LIST (element_type=custom_list);

-- source: docs sql/index.md
-- errata: ELEMENT TYPE is two words; Materialize reads element_type as one identifier and rejects it
CREATE TYPE second_custom_list AS LIST (element_type=int4);

-- source: docs sql/drop-type/index.md
SHOW TYPES;

-- source: docs sql/drop-type/index.md
DROP TYPE int4_map;

-- source: docs sql/drop-type/index.md
DROP TYPE int4_list CASCADE;

-- source: docs sql/drop-type/index.md
DROP TYPE int4_list;

-- source: docs sql/drop-type/index.md
DROP TYPE int4_list RESTRICT;

-- source: docs sql/drop-type/index.md
DROP TYPE IF EXISTS int4_list;

-- source: docs sql/index.md
SHOW CREATE TYPE point;
=======
-- source: docs serve-results/sink/index.md
VALIDATE CONNECTION aws_connection;

-- source: docs security/cloud/access-control/index.md
CREATE ROLE view_manager;

-- source: docs security/cloud/access-control/index.md
CREATE ROLE serving_index_manager;

-- source: docs security/cloud/access-control/index.md
CREATE ROLE data_reader;

-- source: docs security/self-managed/access-control/index.md
CREATE ROLE "blue.berry@example.com" WITH LOGIN PASSWORD '<password>';

-- source: docs security/self-managed/access-control/index.md
CREATE ROLE "sales_report_app" WITH LOGIN PASSWORD '<password>';

-- source: docs security/self-managed/access-control/index.md
CREATE ROLE "lemon@example.com" WITH LOGIN PASSWORD '<password>';

-- source: docs sql/create-role/index.md
CREATE ROLE db_reader;

-- source: docs sql/create-role/index.md
CREATE ROLE db_reader WITH LOGIN PASSWORD 'password';

-- source: docs sql/create-role/index.md
CREATE ROLE super_user WITH SUPERUSER LOGIN PASSWORD 'password';

-- source: docs security/cloud/access-control/index.md
ALTER ROLE "blue.berry@example.com" SET CLUSTER = compute_cluster;

-- source: docs security/cloud/access-control/index.md
ALTER ROLE "blue.berry@example.com" SET DATABASE = mydb;

-- source: docs security/cloud/access-control/index.md
ALTER ROLE "blue.berry@example.com" SET search_path = sales;

-- source: docs security/cloud/access-control/index.md
ALTER ROLE data_reader SET CLUSTER = serving_cluster;

-- source: docs sql/alter-role/index.md
ALTER ROLE rj INHERIT;

-- source: docs sql/alter-role/index.md
ALTER ROLE rj SUPERUSER;

-- source: docs sql/alter-role/index.md
ALTER ROLE rj NOSUPERUSER;

-- source: docs sql/alter-role/index.md
ALTER ROLE rj PASSWORD NULL;

-- source: docs sql/alter-role/index.md
ALTER ROLE rj PASSWORD 'new_password';

-- source: docs security/cloud/access-control/index.md
GRANT USAGE ON SCHEMA mydb.sales TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT USAGE ON CLUSTER compute_cluster TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT SELECT ON ALL TABLES IN SCHEMA mydb.sales TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT CREATE ON CLUSTER compute_cluster TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT CREATE ON SCHEMA mydb.sales TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT CREATE ON CLUSTER serving_cluster TO serving_index_manager;

-- source: docs security/cloud/access-control/index.md
GRANT CREATE ON SCHEMA mydb.sales TO serving_index_manager;

-- source: docs security/cloud/access-control/index.md
GRANT USAGE ON CLUSTER serving_cluster TO serving_index_manager;

-- source: docs security/cloud/access-control/index.md
GRANT USAGE ON SCHEMA mydb.sales TO data_reader;

-- source: docs security/cloud/access-control/index.md
GRANT USAGE ON CLUSTER serving_cluster TO data_reader;

-- source: docs security/cloud/access-control/index.md
GRANT SELECT ON ALL TABLES IN SCHEMA mydb.sales TO data_reader;

-- source: docs security/cloud/access-control/index.md
GRANT view_manager TO "blue.berry@example.com";

-- source: docs security/cloud/access-control/index.md
GRANT serving_index_manager TO view_manager;

-- source: docs security/cloud/access-control/index.md
GRANT data_reader TO sales_report_app;

-- source: docs security/cloud/access-control/index.md
GRANT view_manager TO "lemon@example.com";

-- source: docs sql/grant-privilege/index.md
GRANT SELECT ON mv_quarterly_sales TO data_analysts, reporting;

-- source: docs sql/grant-privilege/index.md
GRANT USAGE, CREATE ON DATABASE materialize TO data_analysts;

-- source: docs sql/grant-privilege/index.md
GRANT ALL ON CLUSTER dev_cluster TO data_analysts, developers;

-- source: docs sql/grant-privilege/index.md
GRANT CREATEDB ON SYSTEM TO source_owners;

-- source: docs sql/grant-role/index.md
GRANT data_scientist TO joe;

-- source: docs sql/grant-role/index.md
GRANT data_scientist TO joe, mike;

-- source: docs manage/terraform/index.md
REVOKE CREATE ON DATABASE dev_table FROM dev_role;

-- source: docs security/cloud/access-control/index.md
REVOKE data_reader FROM sales_report_app;

-- source: docs sql/index.md
REVOKE SELECT ON mv FROM joe, mike;

-- source: docs sql/index.md
REVOKE USAGE, CREATE ON DATABASE materialize FROM joe;

-- source: docs sql/index.md
REVOKE ALL ON CLUSTER dev FROM joe;

-- source: docs sql/index.md
REVOKE CREATEDB ON SYSTEM FROM joe;

-- source: docs sql/index.md
REVOKE data_scientist FROM joe;

-- source: docs sql/index.md
REVOKE data_scientist FROM joe, mike;

-- source: docs security/cloud/access-control/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE "blue.berry@example.com"
IN SCHEMA mydb.sales  -- Optional. If specified, need USAGE on database and schema.
GRANT SELECT ON TABLES TO view_manager, data_reader;

-- source: docs security/cloud/access-control/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE view_manager
IN SCHEMA mydb.sales -- Optional. If specified, need USAGE on database and schema.
GRANT INSERT ON TABLES TO view_manager;

-- source: docs security/cloud/access-control/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE PUBLIC
IN SCHEMA mydb.sales
GRANT INSERT ON TABLES TO view_manager;

-- source: docs sql/alter-default-privileges/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE mike GRANT SELECT ON TABLES TO joe;

-- source: docs sql/alter-default-privileges/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE interns IN DATABASE dev GRANT ALL PRIVILEGES ON TABLES TO intern_managers;

-- source: docs sql/alter-default-privileges/index.md
ALTER DEFAULT PRIVILEGES FOR ROLE developers REVOKE USAGE ON SECRETS FROM project_managers;

-- source: docs sql/alter-default-privileges/index.md
ALTER DEFAULT PRIVILEGES FOR ALL ROLES GRANT SELECT ON TABLES TO managers;

-- source: docs security/cloud/access-control/index.md
SHOW ROLES;

-- source: docs sql/index.md
SHOW ROLES LIKE 'jo%';

-- source: docs sql/index.md
SHOW ROLES WHERE name = 'mike@ko.sh';

-- source: docs sql/drop-owned/index.md
DROP OWNED BY joe;

-- source: docs sql/drop-owned/index.md
DROP OWNED BY joe, george CASCADE;

-- source: docs sql/index.md
REASSIGN OWNED BY joe TO mike;

-- source: docs sql/index.md
REASSIGN OWNED BY joe, george TO mike;

-- Moved from materialize-docs-unsupported.sql when issue 29 served them (ALTER SYSTEM, network policies).

-- source: docs security/self-managed/access-control/index.md
ALTER SYSTEM SET enable_rbac_checks = 'on';

-- source: docs sql/alter-network-policy/index.md
ALTER SYSTEM SET network_policy = office_access_policy;

-- source: docs security/cloud/index.md
CREATE NETWORK POLICY office_access_policy (
  RULES (
    new_york (action='allow', direction='ingress',address='1.2.3.4/28'),
    minnesota (action='allow',direction='ingress',address='2.3.4.5/32')
  )
);

-- source: docs security/cloud/index.md
ALTER NETWORK POLICY office_access_policy SET (
  RULES (
    new_york (action='allow', direction='ingress',address='1.2.3.4/28'),
    minnesota (action='allow',direction='ingress',address='2.3.4.5/32'),
    boston (action='allow',direction='ingress',address='4.5.6.7/32')
  )
);

-- source: docs security/cloud/index.md
DROP NETWORK POLICY office_access_policy;

-- source: docs sql/alter-materialized-view/index.md
CREATE REPLACEMENT MATERIALIZED VIEW winning_bids_replacement
FOR winning_bids AS
SELECT DISTINCT ON (a.id) b.*, a.item, a.seller
FROM auctions AS a
JOIN bids AS b
  ON a.id = b.auction_id
WHERE b.bid_time < a.end_time
  AND mz_now() > a.end_time
ORDER BY a.id,
  b.amount DESC,
  b.bid_time,
  b.buyer;

-- source: docs transform-data/updating-materialized-views/index.md
CREATE REPLACEMENT MATERIALIZED VIEW auction_house.mv_winning_bids_v2
     FOR auction_house.mv_winning_bids
     IN CLUSTER compute_cluster
   AS
   SELECT
       a.id AS auction_id,
       a.item,
       a.end_time,
       b.id AS winning_bid_id,
       b.amount AS winning_amount,
       b.bid_time AS winning_bid_time,
       u.id AS winner_id,
       u.name AS winner_name,
       o.id AS winner_org_id,
       o.name AS winner_org_name
   FROM auction_house.auctions a
   JOIN auction_house.bids b ON a.id = b.auction_id
   JOIN auction_house.users u ON b.buyer = u.id
   JOIN auction_house.organizations o ON u.org_id = o.id
   WHERE a.end_time < mz_now()
   AND b.amount = (
       SELECT MAX(b2.amount)
       FROM auction_house.bids b2
       WHERE b2.auction_id = a.id
   )
   AND b.amount > 50;
