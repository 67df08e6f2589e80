package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.STEPS;

import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.jdbc.Fixtures.OrderPaid;
import dev.shove.jdbc.Fixtures.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The process {@link CrashContract} kills with SIGKILL. Arguments: JDBC URL, user, table prefix, mode. Modes:
 *
 * <ul>
 *   <li>{@code commit}: commits 20 outbox rows (printing {@code committed <id>} after each commit), then prints {@code
 *       ready} and waits to be killed: killed after the commit, before any relay published;
 *   <li>{@code publish}: runs a relay whose broker accepts each message (printing {@code published <id>}) but whose
 *       confirmation never arrives, so the relay never deletes a row: killed after the publish, before the delete;
 *   <li>{@code inbox}: runs an inbox handler that writes a ledger row, prints {@code in-handler} and waits to be
 *       killed: killed in the middle of an inbox transaction.
 * </ul>
 */
final class CrashChild {
    private CrashChild() {}

    public static void main(String[] args) throws Exception {
        UrlDataSource dataSource = new UrlDataSource(args[0], args[1], "");
        ShoveTables tables = ShoveTables.withPrefix(args[2]);
        switch (args[3]) {
            case "commit" -> {
                Outbox outbox = Outbox.of(tables);
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < 20; i++) {
                        String id = outbox.publish(c, STEPS, new Step("k-" + (i % 3), i));
                        c.commit();
                        System.out.println("committed " + id);
                    }
                }
                System.out.println("ready");
                System.out.flush();
                Thread.sleep(Duration.ofMinutes(5)); // killed long before
            }
            case "publish" -> {
                OutboxRelay.Sender accepted = (topic, message) -> {
                    System.out.println("published " + message.headers().get(ShoveHeaders.MESSAGE_ID));
                    System.out.flush();
                    return new CompletableFuture<>(); // the confirmation never comes back
                };
                try (OutboxRelay relay = OutboxRelay.builder(dataSource, accepted)
                        .tables(tables)
                        .topics(STEPS)
                        .publishTimeout(Duration.ofMinutes(5))
                        .build()
                        .start()) {
                    Thread.sleep(Duration.ofMinutes(5)); // killed long before
                    System.out.println("not killed " + relay.isRunning());
                }
            }
            case "inbox" -> {
                String ledger = tables.inbox() + "_ledger";
                try (Inbox inbox = Inbox.builder(dataSource).tables(tables).build()) {
                    inbox.<OrderPaid, NoContext>handler("billing", (order, meta, ctx, c) -> {
                                try (PreparedStatement s =
                                        c.prepareStatement("INSERT INTO " + ledger + " VALUES (?, ?)")) {
                                    s.setString(1, order.orderId());
                                    s.setLong(2, order.cents());
                                    s.executeUpdate();
                                }
                                System.out.println("in-handler");
                                System.out.flush();
                                Thread.sleep(Duration.ofMinutes(5)); // killed long before
                                return Outcome.ack();
                            })
                            .handle(
                                    new OrderPaid("o-1", 100),
                                    MessageMetadata.of("orders", "d-1", Map.of(ShoveHeaders.MESSAGE_ID, "id-1")),
                                    NoContext.INSTANCE);
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[3]);
        }
    }
}
