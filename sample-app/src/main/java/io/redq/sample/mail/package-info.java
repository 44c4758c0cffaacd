/**
 * Mail: a simulated mail server that refuses some sends, so that retries show, and two
 * kinds of mail at different priorities in one queue: password resets (8) go before
 * newsletters (2), while invoices keep the default level (5).
 */
@NullMarked
package io.redq.sample.mail;

import org.jspecify.annotations.NullMarked;
