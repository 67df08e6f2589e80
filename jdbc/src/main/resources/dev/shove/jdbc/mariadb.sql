-- shove-jdbc tables for MariaDB 10.6 and later (and MySQL 8.0 and later), InnoDB. ShoveTables.createTables applies
-- this file; a migration tool can apply it too, with these placeholders replaced (Flyway replaces ${...} itself when
-- they are set as placeholders): ${outbox}, ${outbox_keys}, ${inbox} (the table names) and ${outbox_claim_index},
-- ${inbox_recorded_index}.

CREATE TABLE IF NOT EXISTS ${outbox} (
    id           BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    topic        VARCHAR(255)  NOT NULL,
    msg_key      VARCHAR(255)  NULL,
    message_id   VARCHAR(64)   NOT NULL,
    headers      TEXT          NOT NULL,
    payload      LONGBLOB      NOT NULL,
    content_type VARCHAR(255)  NOT NULL,
    created_at   BIGINT        NOT NULL,
    status       VARCHAR(16)   NOT NULL DEFAULT 'PENDING',
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL,
    failed_at    BIGINT        NULL,
    INDEX ${outbox_claim_index} (status, topic, msg_key, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE IF NOT EXISTS ${outbox_keys} (
    topic   VARCHAR(255) NOT NULL,
    msg_key VARCHAR(255) NOT NULL,
    writes  BIGINT       NOT NULL,
    PRIMARY KEY (topic, msg_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE IF NOT EXISTS ${inbox} (
    consumer_group VARCHAR(255) NOT NULL,
    message_id     VARCHAR(255) NOT NULL,
    recorded_at    BIGINT       NOT NULL,
    PRIMARY KEY (consumer_group, message_id),
    INDEX ${inbox_recorded_index} (recorded_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
