/**
 * The backend SPI: what a broker adapter implements so that the shove engine can drive it.
 *
 * <p>A backend is a thin transport. It declares broker objects, publishes bytes with headers, delivers bytes with
 * headers and coordinates, and carries out the {@link dev.shove.spi.Settlement settlements} the engine chooses. It
 * never decides what an {@link dev.shove.Outcome} means: retry arithmetic, dead-lettering, ordering and timeouts
 * live in the engine, once. Start with {@link dev.shove.spi.Transport}.
 */
@NullMarked
package dev.shove.spi;

import org.jspecify.annotations.NullMarked;
