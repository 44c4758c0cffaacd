package io.redq.sample.mail;

/**
 * The payload of {@code send-newsletter}: one newsletter to one reader.
 *
 * @param email the reader
 * @param subject the newsletter's subject
 * @author Redq team
 * @since 0.1.0
 */
public record Newsletter(String email, String subject) {

}
