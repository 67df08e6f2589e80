package dev.shove.test;

import dev.shove.Broker;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link ShoveTest}: connects a {@link ShoveKit} before each test (or, with {@link
 * ShoveTest.Lifecycle#PER_CLASS}, before the class's first), gives it (or its {@link Broker}) to parameters that ask
 * for one, and closes it when the test (or class) is done, after its {@code @AfterEach} (or {@code @AfterAll})
 * methods. Stateless and thread-safe: each kit lives in its test's extension store.
 *
 * @since 0.1.0
 */
public final class ShoveExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ShoveExtension.class);

    /** Made by JUnit. */
    public ShoveExtension() {}

    @Override
    public void beforeAll(ExtensionContext context) {
        BrokerChoice.Settings settings = settings(context);
        if (settings.lifecycle() == ShoveTest.Lifecycle.PER_CLASS) {
            kit(context, settings, context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        BrokerChoice.Settings settings = settings(context);
        if (settings.lifecycle() == ShoveTest.Lifecycle.PER_METHOD) {
            kit(context, settings, context);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ShoveKit.class || type == Broker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        BrokerChoice.Settings settings = settings(context);
        ExtensionContext owner = owner(context, settings.lifecycle());
        if (owner == null) {
            throw new ParameterResolutionException("a kit that lives for one test method (@ShoveTest(lifecycle ="
                    + " PER_METHOD), the default) cannot be given to " + parameter.getDeclaringExecutable()
                    + "; take it in the test method or in @BeforeEach, or use @ShoveTest(lifecycle = PER_CLASS)");
        }
        ShoveKit kit = kit(context, settings, owner);
        return parameter.getParameter().getType() == Broker.class ? kit.broker() : kit;
    }

    /**
     * Constructors of a per-method test instance get the test method's kit (JUnit 5.12 and later; before, JUnit makes
     * test instances in the class's context, and a constructor can take a kit only with {@code lifecycle = PER_CLASS}).
     */
    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        return ExtensionContextScope.TEST_METHOD;
    }

    /** The context whose store holds the kit: the test method's, or its class's; null when there is none. */
    private static @Nullable ExtensionContext owner(ExtensionContext context, ShoveTest.Lifecycle lifecycle) {
        if (lifecycle == ShoveTest.Lifecycle.PER_METHOD) {
            return context.getTestMethod().isPresent() ? context : null;
        }
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    // getOrComputeIfAbsent: deprecated in JUnit 6 for computeIfAbsent, which JUnit 5 does not have
    @SuppressWarnings("deprecation")
    private static ShoveKit kit(ExtensionContext context, BrokerChoice.Settings settings, ExtensionContext owner) {
        return owner.getStore(NAMESPACE)
                .getOrComputeIfAbsent(Open.class, k -> open(context, settings), Open.class)
                .kit();
    }

    private static Open open(ExtensionContext context, BrokerChoice.Settings settings) {
        BrokerChoice choice = new BrokerChoice(
                System::getProperty,
                System::getenv,
                Docker::unavailable,
                (backend, image) -> container(context, backend, image));
        BrokerChoice.Choice chosen = choice.choose(settings);
        ShoveKit kit = new ShoveKit(
                chosen.config(),
                chosen.source(),
                chosen.description(),
                "shove-test-" + context.getRequiredTestClass().getSimpleName());
        try {
            BrokerChoice.checkRequired(settings, kit.broker().backendName(), chosen.description());
        } catch (RuntimeException e) {
            kit.close();
            throw e;
        }
        return new Open(kit);
    }

    /** One container per backend and image for the whole run, stopped when the run ends. */
    @SuppressWarnings("deprecation") // getOrComputeIfAbsent, as in kit(...)
    private static RunningBroker container(ExtensionContext context, String backend, String image) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        "container " + backend + " " + image,
                        key -> new OpenContainer(Containers.start(backend, image)),
                        OpenContainer.class)
                .running();
    }

    /** The test's settings: its class's {@link ShoveTest}, else an enclosing class's, else the defaults. */
    private static BrokerChoice.Settings settings(ExtensionContext context) {
        Class<?> c = context.getTestClass().orElse(null);
        while (c != null) {
            Optional<ShoveTest> found = AnnotationSupport.findAnnotation(c, ShoveTest.class);
            if (found.isPresent()) {
                return BrokerChoice.Settings.of(found.get());
            }
            c = c.getEnclosingClass();
        }
        return BrokerChoice.Settings.DEFAULTS;
    }

    /**
     * A kit in a store: JUnit closes it when the store's test or class is done. Both interfaces, so that every JUnit
     * the kit runs on closes it: JUnit 5 before 5.13 closes only a {@code CloseableResource}, JUnit 6 prefers {@code
     * AutoCloseable} (and closes a value once).
     */
    @SuppressWarnings("deprecation") // CloseableResource: deprecated in JUnit 6, the only kind JUnit 5.10-5.12 close
    private record Open(ShoveKit kit) implements AutoCloseable, ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            kit.close();
        }
    }

    /** A container in the root store, closed when the run ends, on every JUnit (see {@link Open}). */
    @SuppressWarnings("deprecation")
    private record OpenContainer(RunningBroker running)
            implements AutoCloseable, ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            running.close();
        }
    }
}
