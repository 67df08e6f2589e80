package dev.shove.codec.avro;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Conversion;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The specific data of one generated record class, which knows the classes of that record's schema without looking
 * them up by name.
 *
 * <p>Why: since 1.12.2, Avro loads a class named by a schema only when a global allow-list (the system properties
 * {@code org.apache.avro.SERIALIZABLE_CLASSES} / {@code SERIALIZABLE_PACKAGES}) trusts it, so that a schema from
 * outside cannot make it instantiate an arbitrary class; an application's own generated records are refused until it
 * sets them. Here the application handed the class over itself, and the schema walked is the one compiled into that
 * class, never one from the wire: its record, enum and fixed classes are resolved once, up front, from the class's
 * own class loader. Any other name still goes through Avro's check. The conversions of the class's own model
 * (logical types) are kept.
 */
final class TrustedSpecificData extends SpecificData {
    private final Map<String, Class<?>> known;

    private TrustedSpecificData(ClassLoader loader, Map<String, Class<?>> known) {
        super(loader);
        this.known = Map.copyOf(known);
    }

    static TrustedSpecificData of(Class<? extends SpecificRecord> type) {
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        Map<String, Class<?>> known = new HashMap<>();
        known.put(schema.getFullName(), type);
        ClassLoader loader = type.getClassLoader();
        collect(schema, loader, known, new HashMap<>());
        TrustedSpecificData data = new TrustedSpecificData(loader, known);
        for (Conversion<?> conversion : model.getConversions()) {
            data.addLogicalTypeConversion(conversion);
        }
        return data;
    }

    private static void collect(
            Schema schema, ClassLoader loader, Map<String, Class<?>> known, Map<String, Schema> seen) {
        switch (schema.getType()) {
            case RECORD, ENUM, FIXED -> {
                if (seen.putIfAbsent(schema.getFullName(), schema) != null) {
                    return;
                }
                if (!known.containsKey(schema.getFullName())) {
                    try {
                        known.put(schema.getFullName(), Class.forName(getClassName(schema), false, loader));
                    } catch (ClassNotFoundException | LinkageError e) {
                        // not generated: Avro reads it as a generic value, as it would without this class
                    }
                }
                if (schema.getType() == Schema.Type.RECORD) {
                    schema.getFields().forEach(f -> collect(f.schema(), loader, known, seen));
                }
            }
            case ARRAY -> collect(schema.getElementType(), loader, known, seen);
            case MAP -> collect(schema.getValueType(), loader, known, seen);
            case UNION -> schema.getTypes().forEach(t -> collect(t, loader, known, seen));
            default -> {}
        }
    }

    @Override
    @SuppressWarnings("rawtypes") // Avro's signature
    public Class getClass(Schema schema) {
        Class<?> type = switch (schema.getType()) {
            case RECORD, ENUM, FIXED -> known.get(schema.getFullName());
            default -> null;
        };
        return type != null ? type : super.getClass(schema);
    }
}
