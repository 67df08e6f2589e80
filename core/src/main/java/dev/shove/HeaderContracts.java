package dev.shove;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Optional;

/** Parses message headers into a record "header contract" (see {@code MessageMetadata.headersAs}). */
final class HeaderContracts {
    private static final ObjectMapper MAPPER = JsonCodec.DEFAULT_MAPPER;

    private record Shape(RecordComponent[] components, Constructor<?> constructor) {}

    private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            if (components == null) {
                throw new IllegalArgumentException(type.getName() + " is not a record");
            }
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
            }
            try {
                Constructor<?> constructor = type.getDeclaredConstructor(types);
                constructor.setAccessible(true);
                return new Shape(components, constructor);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalArgumentException("cannot use " + type.getName() + " as a header contract", e);
            }
        }
    };

    private HeaderContracts() {}

    static <H extends Record> H parse(Map<String, String> headers, Class<H> contract) {
        Shape shape = SHAPES.get(contract);
        Object[] args = new Object[shape.components().length];
        for (int i = 0; i < args.length; i++) {
            RecordComponent c = shape.components()[i];
            args[i] = value(headers, c, contract);
        }
        try {
            return contract.cast(shape.constructor().newInstance(args));
        } catch (ReflectiveOperationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(
                    "headers do not fit " + contract.getSimpleName() + ": " + cause.getMessage(), cause);
        }
    }

    private static Object value(Map<String, String> headers, RecordComponent c, Class<?> contract) {
        String name = c.getName();
        String raw = headers.get(name);
        if (raw == null) {
            raw = headers.get(kebab(name));
        }
        boolean optional = c.getType() == Optional.class;
        if (raw == null) {
            if (optional) {
                return Optional.empty();
            }
            throw new IllegalArgumentException("required header '%s' (or '%s') of %s is missing"
                    .formatted(name, kebab(name), contract.getSimpleName()));
        }
        Type target = optional ? optionalArgument(c) : c.getGenericType();
        try {
            Object converted = MAPPER.convertValue(raw, MAPPER.constructType(target));
            return optional ? Optional.ofNullable(converted) : converted;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("header '%s' of %s does not parse as %s: '%s'"
                    .formatted(name, contract.getSimpleName(), target.getTypeName(), raw));
        }
    }

    private static Type optionalArgument(RecordComponent c) {
        if (c.getGenericType() instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[0];
        }
        return String.class;
    }

    static String kebab(String camel) {
        StringBuilder out = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            char ch = camel.charAt(i);
            if (Character.isUpperCase(ch)) {
                if (i > 0) {
                    out.append('-');
                }
                out.append(Character.toLowerCase(ch));
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }
}
