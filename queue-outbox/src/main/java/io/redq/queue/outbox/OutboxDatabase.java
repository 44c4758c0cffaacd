package io.redq.queue.outbox;

import java.sql.DatabaseMetaData;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.support.JdbcUtils;

/**
 * The databases the outbox runs on: those whose SQL its relay and scripts are written and
 * tested for. Any other is refused at startup, rather than failing at the first relay
 * pass.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum OutboxDatabase {

	/** PostgreSQL 9.5 or later. */
	POSTGRESQL("PostgreSQL", 9, 5),

	/** H2 2.x. */
	H2("H2", 2, 0),

	/** MariaDB 10.6 or later. */
	MARIADB("MariaDB", 10, 6);

	private final String productName;

	private final int major;

	private final int minor;

	OutboxDatabase(String productName, int major, int minor) {
		this.productName = productName;
		this.major = major;
		this.minor = minor;
	}

	/**
	 * Return the database that a data source connects to.
	 * @param dataSource the data source of the outbox table
	 * @return the database
	 * @throws IllegalStateException when the outbox does not support it
	 */
	public static OutboxDatabase of(DataSource dataSource) {
		try {
			return JdbcUtils.extractDatabaseMetaData(dataSource,
					(DatabaseMetaData metaData) -> of(metaData.getDatabaseProductName(),
							metaData.getDatabaseMajorVersion(), metaData.getDatabaseMinorVersion()));
		}
		catch (IllegalStateException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read which database holds the outbox table", ex);
		}
	}

	/**
	 * Return the database of a product name and version, as JDBC reports them.
	 * @param productName the product name
	 * @param major the major version
	 * @param minor the minor version
	 * @return the database
	 * @throws IllegalStateException when the outbox does not support it
	 */
	static OutboxDatabase of(String productName, int major, int minor) {
		String name = productName.toLowerCase(Locale.ROOT);
		for (OutboxDatabase database : values()) {
			if (name.contains(database.productName.toLowerCase(Locale.ROOT))) {
				if (major > database.major || (major == database.major && minor >= database.minor)) {
					return database;
				}
				throw unsupported(productName + " " + major + "." + minor);
			}
		}
		throw unsupported(productName + " " + major + "." + minor);
	}

	private static IllegalStateException unsupported(String database) {
		return new IllegalStateException("The Redq outbox (queue-outbox) supports PostgreSQL 9.5+, H2 2.x and MariaDB "
				+ "10.6+; this application's DataSource is " + database + ". Set redq.outbox.enabled=false to send "
				+ "the jobs of a transaction after its commit instead, or remove queue-outbox");
	}

}
