package dev.shove.test;

/** The message of the kit's own tests. */
record Order(String id, long cents) {}
