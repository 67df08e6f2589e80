package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Sharding")
class ShardingTest {

    /** The FNV-1a 64-bit test vectors published with the reference implementation (Landon Curt Noll's test_fnv.c). */
    @ParameterizedTest(name = "fnv1a64(\"{0}\") = {1}")
    @CsvSource(
            value = {
                "'', cbf29ce484222325",
                "a, af63dc4c8601ec8c",
                "b, af63df4c8601f1a5",
                "c, af63de4c8601eff2",
                "d, af63d94c8601e773",
                "e, af63d84c8601e5c0",
                "f, af63db4c8601ead9",
                "fo, 08985907b541d342",
                "foo, dcb27518fed9d577",
                "foob, dd120e790c2512af",
                "fooba, cac165afa2fef40a",
                "foobar, 85944171f73967e8"
            })
    @DisplayName("FNV-1a-64 matches the published test vectors")
    void publishedVectors(String key, String hex) {
        assertThat(Sharding.fnv1a64(key)).isEqualTo(Long.parseUnsignedLong(hex, 16));
    }

    /**
     * Keys outside ASCII hash their UTF-8 bytes as unsigned octets (a signed byte would sign-extend into the XOR).
     * Expected values computed with an independent implementation (Python, {@code str.encode("utf-8")}).
     */
    @ParameterizedTest(name = "fnv1a64(\"{0}\") = {1}")
    @CsvSource({"é, 0ac21707b7181e01", "日本, 121d7e35a6d3ce91", "😀, feff073875020288"})
    @DisplayName("FNV-1a-64 hashes the UTF-8 bytes of non-ASCII keys as unsigned octets")
    void utf8Bytes(String key, String hex) {
        assertThat(Sharding.fnv1a64(key)).isEqualTo(Long.parseUnsignedLong(hex, 16));
    }

    @ParameterizedTest(name = "shardOf(\"{0}\", {1}) = {2}")
    @CsvSource({
        // hashes with the top bit set: a signed remainder would be negative or different
        "a, 7, 5",
        "a, 10, 6",
        "a, 8, 4",
        "foobar, 7, 6",
        "foobar, 10, 8",
        "'', 7, 2",
        "😀, 7, 3",
        // top bit clear
        "fo, 7, 1",
        "customer-42, 10, 6",
        "customer-42, 16, 14"
    })
    @DisplayName("the shard is the hash modulo the shard count as an unsigned number")
    void unsignedModulo(String key, int shards, int expected) {
        assertThat(Sharding.shardOf(key, shards)).isEqualTo(expected);
    }

    @Test
    @DisplayName("the test keys with the top bit set really are negative as Java longs")
    void topBitCasesAreNegative() {
        assertThat(Sharding.fnv1a64("a")).isNegative();
        assertThat(Sharding.fnv1a64("foobar")).isNegative();
        assertThat(Sharding.fnv1a64("a") % 7).isNotEqualTo(5);
    }

    @Test
    @DisplayName("every key lands in [0, shards) and one shard takes every key")
    void inRange() {
        IntStream.range(0, 10_000).mapToObj(i -> "key-" + i).forEach(key -> {
            assertThat(Sharding.shardOf(key, 7)).isBetween(0, 6);
            assertThat(Sharding.shardOf(key, 1)).isZero();
        });
    }

    @Test
    @DisplayName("keys spread over every shard")
    void spread() {
        long used = IntStream.range(0, 1_000)
                .map(i -> Sharding.shardOf("customer-" + i, 8))
                .distinct()
                .count();

        assertThat(used).isEqualTo(8);
    }
}
