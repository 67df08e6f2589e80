/** shove's AWS SQS + SNS backend, over the AWS SDK for Java v2 (async clients on one Netty HTTP client). */
module dev.shove.sqs {
    requires transitive dev.shove;
    requires transitive software.amazon.awssdk.auth;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.nio.netty;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.services.sqs;
    requires software.amazon.awssdk.services.sns;
    requires software.amazon.awssdk.utils;
    requires com.fasterxml.jackson.databind;
    requires io.netty.transport;

    exports dev.shove.sqs;
}
