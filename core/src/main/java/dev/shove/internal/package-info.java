/** The delivery engine. Not API: anything here may change in any release. */
@NullMarked
package dev.shove.internal;

import org.jspecify.annotations.NullMarked;
