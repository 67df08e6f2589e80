package dev.shove.conformance;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs only some groups of the kit when the system property {@value #PROPERTY} names them (comma-separated names of
 * the kit's nested classes, in any case: {@code -Dshove.kit.groups=DeadLetters,Metadata}), so that a change to one area
 * can be tried against a real broker in minutes. Unset, every group runs (as CI runs them).
 */
public final class KitSelection implements ExecutionCondition {
    /** The system property naming the groups to run. */
    public static final String PROPERTY = "shove.kit.groups";

    /** Created by JUnit, through {@code @ExtendWith} on {@link BrokerConformance}. */
    public KitSelection() {}

    /** Disables the groups the property does not name; enables everything when it is unset. */
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String wanted = System.getProperty(PROPERTY, "").trim();
        if (wanted.isEmpty()) {
            return ConditionEvaluationResult.enabled("every group of the kit runs");
        }
        Set<String> groups = Arrays.stream(wanted.split(","))
                .map(s -> s.trim().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
        Class<?> test = context.getTestClass().orElse(null);
        if (test == null || test.getEnclosingClass() == null) {
            return ConditionEvaluationResult.enabled("the kit itself");
        }
        return groups.contains(test.getSimpleName().toLowerCase(Locale.ROOT))
                ? ConditionEvaluationResult.enabled("selected by " + PROPERTY)
                : ConditionEvaluationResult.disabled("not selected by " + PROPERTY + "=" + wanted);
    }
}
