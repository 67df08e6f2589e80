package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SqsGroupIdTest {

    @Test
    @DisplayName("a key SQS takes as a MessageGroupId is used as it is")
    void plainKey() {
        assertThat(SqsTransport.groupId("customer-42")).isEqualTo("customer-42");
    }

    @Test
    @DisplayName("a key SQS would refuse (non-ASCII, a space, over 128 characters) gets a stable group of its own")
    void hashedKeys() {
        for (String key : new String[] {"müller", "张三", "two words", "k".repeat(129)}) {
            String group = SqsTransport.groupId(key);
            assertThat(group).as(key).matches("h-[A-Za-z0-9_-]{43}").isEqualTo(SqsTransport.groupId(key));
        }
        assertThat(SqsTransport.groupId("müller")).isNotEqualTo(SqsTransport.groupId("muller"));
    }

    @Test
    @DisplayName("a key that starts like a hashed group is hashed too, so it never shares another key's group")
    void hashLookalike() {
        String hashed = SqsTransport.groupId("müller");
        assertThat(SqsTransport.groupId(hashed)).isNotEqualTo(hashed);
    }
}
