package dev.shove.sqs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * How a shove message travels as an SQS (or SNS) message: the payload as the body, the user's headers as message
 * attributes, and shove's own headers packed into one attribute.
 *
 * <p><b>Why a pack.</b> SQS carries at most 10 message attributes. shove's headers ({@code shove-message-id}, {@code
 * shove-retry-count}, ...) go together into the one attribute {@value #SHOVE_ATTRIBUTE}, a small JSON object, so that
 * {@value #MAX_USER_ATTRIBUTES} attributes remain for the user's headers, which other SQS consumers read as usual. A
 * header SQS cannot carry as an attribute (an empty value, a name SQS refuses, characters outside SQS's set) rides
 * in the pack too; a message with more than {@value #MAX_USER_ATTRIBUTES} other headers is refused, naming them.
 *
 * <p><b>The body.</b> SQS bodies are text limited to XML's characters and must not be empty. A payload that is such
 * text in UTF-8 (JSON, usually) is sent as it is, so other consumers read it; any other payload (binary, empty,
 * characters outside the basic plane, which the emulator refuses) is sent Base64-encoded and marked in the pack.
 *
 * <p>Pack format: {@code {"h":{"shove-message-id":"...",...},"e":"b64"}}; {@code e} is absent for text bodies and
 * {@code "empty"} for an empty payload. Written ASCII-only. A pack that cannot be read is ignored (the message is then
 * read as another producer's). Stateless; thread-safe.
 */
final class SqsMessages {
    private static final Logger log = LoggerFactory.getLogger(SqsMessages.class);

    /** The attribute holding shove's own headers (and those SQS cannot carry), plus the body's encoding. */
    static final String SHOVE_ATTRIBUTE = "shove";
    /** The most message attributes SQS and SNS carry on one message. */
    static final int MAX_ATTRIBUTES = 10;
    /** The attributes left for the user's headers: all but shove's one. */
    static final int MAX_USER_ATTRIBUTES = MAX_ATTRIBUTES - 1;
    /** The largest message SNS accepts, and SQS's classic limit: 256 KiB of body and attributes together. */
    static final int MAX_MESSAGE_BYTES = 262_144;

    private static final String STRING = "String";
    private static final String BASE64 = "b64";
    private static final String EMPTY = "empty";
    private static final String EMPTY_BODY = "-";
    private static final JsonFactory JSON =
            JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private SqsMessages() {}

    /**
     * A message ready to send: its body, its attributes (name to text value, all of type {@code String}) and its size
     * as SQS counts it (body and attributes' names, types and values, in UTF-8 bytes).
     */
    record Encoded(String body, Map<String, String> attributes, int size) {
        Map<String, MessageAttributeValue> forSqs() {
            Map<String, MessageAttributeValue> out = new HashMap<>(attributes.size() * 2);
            attributes.forEach((name, value) -> out.put(
                    name,
                    MessageAttributeValue.builder()
                            .dataType(STRING)
                            .stringValue(value)
                            .build()));
            return out;
        }

        Map<String, software.amazon.awssdk.services.sns.model.MessageAttributeValue> forSns() {
            Map<String, software.amazon.awssdk.services.sns.model.MessageAttributeValue> out =
                    new HashMap<>(attributes.size() * 2);
            attributes.forEach((name, value) -> out.put(
                    name,
                    software.amazon.awssdk.services.sns.model.MessageAttributeValue.builder()
                            .dataType(STRING)
                            .stringValue(value)
                            .build()));
            return out;
        }
    }

    /** A message as received: the payload bytes and every header. */
    record Decoded(byte[] payload, Map<String, String> headers) {}

    /**
     * Encodes a payload and its headers for SQS or SNS.
     *
     * @param what names the message in errors, e.g. {@code a message of topic 'orders'}
     * @throws PublishException when the message has too many headers for SQS or is too large
     */
    static Encoded encode(byte[] payload, Map<String, String> headers, String what) {
        Map<String, String> attributes = new LinkedHashMap<>(Math.min(headers.size(), MAX_ATTRIBUTES) * 2);
        Map<String, String> packed = new LinkedHashMap<>(8);
        List<String> userAttributes = new ArrayList<>();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            String name = h.getKey();
            String value = h.getValue();
            if (ShoveHeaders.isReserved(name) || !isAttributeName(name) || !isSqsText(value) || value.isEmpty()) {
                packed.put(name, value);
            } else {
                attributes.put(name, value);
                userAttributes.add(name);
            }
        }
        if (userAttributes.size() > MAX_USER_ATTRIBUTES) {
            throw new PublishException(
                    ("%s has %d headers, but SQS carries at most %d message attributes and shove uses 1 for its own"
                                    + " headers, so %d remain for yours: %s. Send fewer headers (or fold some into"
                                    + " the payload)")
                            .formatted(
                                    what,
                                    userAttributes.size(),
                                    MAX_ATTRIBUTES,
                                    MAX_USER_ATTRIBUTES,
                                    userAttributes.stream().sorted().toList()),
                    null,
                    false);
        }
        String body;
        String encoding = null;
        if (payload.length == 0) {
            body = EMPTY_BODY;
            encoding = EMPTY;
        } else {
            String text = sqsText(payload);
            if (text != null) {
                body = text;
            } else {
                body = Base64.getEncoder().encodeToString(payload);
                encoding = BASE64;
            }
        }
        attributes.put(SHOVE_ATTRIBUTE, pack(packed, encoding));
        int size = utf8Length(body);
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            size += utf8Length(a.getKey()) + STRING.length() + utf8Length(a.getValue());
        }
        if (size > MAX_MESSAGE_BYTES) {
            throw new PublishException(
                    ("%s is %d bytes as an SQS message (payload %d bytes%s, headers included), over the %d bytes (256"
                                    + " KiB) SQS and SNS accept. Make the payload smaller, or store it elsewhere and"
                                    + " send a reference")
                            .formatted(
                                    what,
                                    size,
                                    payload.length,
                                    BASE64.equals(encoding) ? ", Base64-encoded because it is not SQS text" : "",
                                    MAX_MESSAGE_BYTES),
                    null,
                    false);
        }
        return new Encoded(body, attributes, size);
    }

    /** Decodes a received message: its body and every attribute as headers, shove's pack unpacked. */
    static Decoded decode(String body, Map<String, MessageAttributeValue> attributes) {
        Map<String, String> headers = new HashMap<>(Math.max(8, attributes.size() * 2));
        String encoding = null;
        for (Map.Entry<String, MessageAttributeValue> a : attributes.entrySet()) {
            MessageAttributeValue value = a.getValue();
            if (a.getKey().equals(SHOVE_ATTRIBUTE) && value.stringValue() != null) {
                encoding = unpack(value.stringValue(), headers);
                continue;
            }
            String text = attributeText(value);
            if (text != null) {
                headers.putIfAbsent(a.getKey(), text);
            }
        }
        byte[] payload;
        if (EMPTY.equals(encoding)) {
            payload = new byte[0];
        } else if (BASE64.equals(encoding)) {
            try {
                payload = Base64.getDecoder().decode(body);
            } catch (IllegalArgumentException e) {
                log.debug("a message marked Base64 has a body that is not Base64; delivering it as text");
                payload = body.getBytes(StandardCharsets.UTF_8);
            }
        } else {
            payload = body.getBytes(StandardCharsets.UTF_8);
        }
        return new Decoded(payload, headers);
    }

    /** An attribute as a header value: text and numbers as they are, binary Base64-encoded. */
    private static @Nullable String attributeText(MessageAttributeValue value) {
        if (value.stringValue() != null) {
            return value.stringValue();
        }
        SdkBytes binary = value.binaryValue();
        return binary == null ? null : Base64.getEncoder().encodeToString(binary.asByteArrayUnsafe());
    }

    private static String pack(Map<String, String> headers, @Nullable String encoding) {
        StringWriter out = new StringWriter(64 + headers.size() * 48);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeObjectFieldStart("h");
            for (Map.Entry<String, String> h : headers.entrySet()) {
                g.writeStringField(h.getKey(), h.getValue());
            }
            g.writeEndObject();
            if (encoding != null) {
                g.writeStringField("e", encoding);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("cannot write shove's header attribute", e);
        }
        return out.toString();
    }

    /** Reads a pack into {@code headers} (its headers win over attributes of the same name); returns the encoding. */
    private static @Nullable String unpack(String pack, Map<String, String> headers) {
        Map<String, String> read = new HashMap<>(8);
        String encoding = null;
        try (JsonParser p = JSON.createParser(pack)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("h") && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        if (p.nextToken() != JsonToken.VALUE_STRING) {
                            throw new IOException("header " + name + " is not a string");
                        }
                        read.put(name, p.getText());
                    }
                } else if (field.equals("e") && value == JsonToken.VALUE_STRING) {
                    encoding = p.getText();
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            log.debug(
                    "the '{}' attribute of a message cannot be read ({}); ignoring it", SHOVE_ATTRIBUTE, e.toString());
            return null;
        }
        headers.putAll(read);
        return encoding;
    }

    /**
     * Whether SQS (and SNS) accept this as a message attribute name: 1 to 256 letters, digits, {@code _ - .}, not
     * starting or ending with {@code .}, no {@code ..}, not starting with {@code AWS.} or {@code Amazon.}, and not
     * shove's own attribute.
     */
    static boolean isAttributeName(String name) {
        int n = name.length();
        if (n == 0 || n > 256 || name.charAt(0) == '.' || name.charAt(n - 1) == '.' || name.contains("..")) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            boolean ok = c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || c >= '0' && c <= '9'
                    || c == '_'
                    || c == '-'
                    || c == '.';
            if (!ok) {
                return false;
            }
        }
        String lower = name.toLowerCase(Locale.ROOT);
        return !lower.startsWith("aws.") && !lower.startsWith("amazon.") && !lower.equals(SHOVE_ATTRIBUTE);
    }

    /** The payload as SQS text, or null when it is not valid UTF-8 of characters SQS accepts. */
    static @Nullable String sqsText(byte[] payload) {
        boolean ascii = true;
        for (byte b : payload) {
            if (b >= 0 && b < 0x20 && b != '\t' && b != '\n' && b != '\r') {
                return null;
            }
            if (b < 0) {
                ascii = false;
            }
        }
        if (ascii) {
            return new String(payload, StandardCharsets.ISO_8859_1);
        }
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload));
        } catch (CharacterCodingException e) {
            return null;
        }
        String text = chars.toString();
        return isSqsText(text) ? text : null;
    }

    /**
     * Whether every character is one SQS accepts in bodies and attribute values (tab, newline, carriage return, U+0020
     * to U+D7FF, U+E000 to U+FFFD). Characters outside the basic plane are refused here although AWS accepts them:
     * the emulator does not.
     */
    static boolean isSqsText(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 ? c != '\t' && c != '\n' && c != '\r' : c >= 0xD800 && c < 0xE000 || c > 0xFFFD) {
                return false;
            }
        }
        return true;
    }

    private static int utf8Length(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                bytes += c < 0x800 ? 1 : Character.isSurrogate(c) ? 1 : 2;
            }
        }
        return bytes;
    }
}
