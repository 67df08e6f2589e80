/**
 * shove's AWS SQS + SNS backend, over the AWS SDK for Java v2 (synchronous clients on Apache HttpClient 5, called on
 * virtual threads; no Netty).
 */
module dev.shove.sqs {
    requires transitive dev.shove;
    requires transitive software.amazon.awssdk.auth;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.apache5;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.services.sqs;
    requires software.amazon.awssdk.services.sns;
    requires software.amazon.awssdk.utils;
    requires com.fasterxml.jackson.databind;
    // Apache HttpClient 5 is an automatic module that uses jdk.net (socket options) without declaring it: required
    // here so that the module graph of an application on the module path (or a jlink image) has it
    requires jdk.net;

    exports dev.shove.sqs;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.sqs.SqsConfigProvider;
}
