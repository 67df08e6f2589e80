package dev.shove.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A sample test class that {@link ShoveExtensionTest} runs in the JUnit Platform's test kit, with {@link #ENABLED}
 * set; anywhere else (a {@code -Dtest} pattern that reaches nested classes) it is disabled.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(Sample.OnlyWhenRunAsSample.class)
@interface Sample {
    /** The configuration parameter that enables samples. */
    String ENABLED = "dev.shove.test.samples";

    /** Disables a sample unless its runner enabled samples. */
    final class OnlyWhenRunAsSample implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(ENABLED)
                            .map(Boolean::parseBoolean)
                            .orElse(false)
                    ? ConditionEvaluationResult.enabled("run as a sample")
                    : ConditionEvaluationResult.disabled("a sample of ShoveExtensionTest, run only by it");
        }
    }
}
