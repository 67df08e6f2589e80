/**
 * The {@code shove} command line: {@link dev.shove.cli.ShoveCli} is its main class. The commands ({@code ping},
 * {@code topology show|declare}, {@code publish}, {@code dlq count|list|replay|purge}, {@code asyncapi}) are described
 * in {@code docs/cli.md} and by {@code shove COMMAND --help}.
 *
 * @since 0.1.0
 */
@NullMarked
package dev.shove.cli;

import org.jspecify.annotations.NullMarked;
