package dev.shove.codec.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code .proto} text of a compiled file, from its descriptor: what an AsyncAPI document shows as a Protobuf
 * payload schema. Why by hand: protobuf-java prints descriptors only in its text format, which is not {@code .proto}
 * syntax. What this renders is what the wire depends on (syntax, package, imports, messages, enums, fields with their
 * types, labels and numbers, oneofs, maps, {@code deprecated}); other options and comments are not in it.
 */
final class ProtoText {
    private ProtoText() {}

    static String of(FileDescriptor file) {
        StringBuilder out = new StringBuilder();
        String syntax = file.toProto().getSyntax();
        if (syntax.equals("editions")) {
            out.append("edition = \"").append(file.toProto().getEdition().name().replace("EDITION_", ""));
            out.append("\";\n");
        } else {
            out.append("syntax = \"")
                    .append(syntax.isEmpty() ? "proto2" : syntax)
                    .append("\";\n");
        }
        if (!file.getPackage().isEmpty()) {
            out.append("\npackage ").append(file.getPackage()).append(";\n");
        }
        if (!file.getDependencies().isEmpty()) {
            out.append('\n');
            for (FileDescriptor dependency : file.getDependencies()) {
                out.append("import \"").append(dependency.getName()).append("\";\n");
            }
        }
        boolean proto2 = syntax.isEmpty() || syntax.equals("proto2");
        for (EnumDescriptor e : file.getEnumTypes()) {
            out.append('\n');
            enumType(out, e, "");
        }
        for (Descriptor m : file.getMessageTypes()) {
            out.append('\n');
            message(out, m, "", proto2);
        }
        return out.toString();
    }

    private static void message(StringBuilder out, Descriptor m, String indent, boolean proto2) {
        out.append(indent).append("message ").append(m.getName()).append(" {\n");
        String inner = indent + "  ";
        for (EnumDescriptor e : m.getEnumTypes()) {
            enumType(out, e, inner);
        }
        for (Descriptor nested : m.getNestedTypes()) {
            if (!nested.getOptions().getMapEntry()) {
                message(out, nested, inner, proto2);
            }
        }
        List<OneofDescriptor> written = new ArrayList<>();
        for (FieldDescriptor f : m.getFields()) {
            OneofDescriptor oneof = f.getRealContainingOneof();
            if (oneof == null) {
                field(out, f, inner, proto2);
            } else if (!written.contains(oneof)) {
                written.add(oneof);
                out.append(inner).append("oneof ").append(oneof.getName()).append(" {\n");
                for (FieldDescriptor member : oneof.getFields()) {
                    field(out, member, inner + "  ", false);
                }
                out.append(inner).append("}\n");
            }
        }
        out.append(indent).append("}\n");
    }

    private static void field(StringBuilder out, FieldDescriptor f, String indent, boolean proto2) {
        out.append(indent);
        if (f.isMapField()) {
            Descriptor entry = f.getMessageType();
            out.append("map<")
                    .append(type(entry.findFieldByNumber(1)))
                    .append(", ")
                    .append(type(entry.findFieldByNumber(2)))
                    .append("> ");
        } else {
            if (f.isRepeated()) {
                out.append("repeated ");
            } else if (f.isRequired()) {
                out.append("required ");
            } else if (proto2 || (f.hasPresence() && f.getContainingOneof() != null)) {
                out.append("optional "); // proto2's label, or proto3's explicit optional (a synthetic oneof)
            }
            out.append(type(f)).append(' ');
        }
        out.append(f.getName()).append(" = ").append(f.getNumber());
        if (f.getOptions().getDeprecated()) {
            out.append(" [deprecated = true]");
        }
        out.append(";\n");
    }

    private static String type(FieldDescriptor f) {
        return switch (f.getType()) {
            case MESSAGE, GROUP -> "." + f.getMessageType().getFullName();
            case ENUM -> "." + f.getEnumType().getFullName();
            default -> f.getType().name().toLowerCase(Locale.ROOT);
        };
    }

    private static void enumType(StringBuilder out, EnumDescriptor e, String indent) {
        out.append(indent).append("enum ").append(e.getName()).append(" {\n");
        for (EnumValueDescriptor v : e.getValues()) {
            out.append(indent).append("  ").append(v.getName()).append(" = ").append(v.getNumber());
            if (v.getOptions().getDeprecated()) {
                out.append(" [deprecated = true]");
            }
            out.append(";\n");
        }
        out.append(indent).append("}\n");
    }
}
